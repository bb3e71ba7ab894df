import type { HandlerMap } from '../http/operation-types.js';
import { changeEmail, changePassword, deleteAccount } from './account/account-lifecycle.js';
import { getAccount } from './account/get-account.js';
import { confirmPasswordReset, requestPasswordReset } from './auth/password-reset.js';
import { listSessions, refreshSession, revokeAllSessions, revokeSession, signIn } from './auth/sessions.js';
import { confirmEmail, resendConfirmation, signUp } from './auth/sign-up.js';
import { confirmTotp, disableTotp, enrolTotp } from './auth/totp.js';
import { createChat, createChatMessage, getChat, getChatImageJob, listChats } from './chat/chat-rooms.js';
import { createChatJob } from './chat/create-chat-job.js';
import { createCompatChatCompletion } from './chat/create-compat-chat-completion.js';
import { createNativeChatCompletion } from './chat/create-native-chat-completion.js';
import { createResponse } from './chat/create-response.js';
import { getChatJob } from './chat/get-chat-job.js';
import { getCompatModel } from './compat/get-compat-model.js';
import { listCompatModels } from './compat/list-compat-models.js';
import { getHostedFile } from './files/get-hosted-file.js';
import { createApiKey } from './llm/create-api-key.js';
import { getModelCatalog } from './llm/get-model-catalog.js';
import { getModelPerformance } from './llm/get-model-performance.js';
import { listApiKeys } from './llm/list-api-keys.js';
import { revokeApiKey } from './llm/revoke-api-key.js';
import { updateApiKey } from './llm/update-api-key.js';
import {
  checkBurstImage,
  createBurstOrder,
  deleteBurstOrder,
  estimateBurstOrder,
  getBurstOrder,
  listBurstOrderHistory,
  listBurstOrders,
  listBurstOrderTransactions,
  startBurstOrder,
  stopBurstOrder,
} from './market/burst-orders.js';
import {
  createInstance,
  deleteInstance,
  ensureSshProxy,
  getInstance,
  listInstances,
  startInstance,
  stopInstance,
} from './market/instances.js';
import {
  getProviderEarnings,
  listMachines,
  machineHeartbeat,
  registerMachine,
  updateMachineListing,
  waitForTunnels,
} from './market/machines.js';
import { listOffers } from './market/offers.js';
import { createRecommendation } from './market/recommendation.js';
import { createVolume, deleteVolume, getVolume, listVolumes } from './market/volumes.js';
import { createAudioJob, estimateAudioJob, getAudioJob } from './media/audio-jobs.js';
import { createCompatImage, createImage } from './media/create-image.js';
import { createImageJob } from './media/create-image-job.js';
import { estimateImageJob } from './media/estimate-image-job.js';
import { getImageJob } from './media/get-image-job.js';
import { createMusicJob, estimateMusicJob, getMusicJob } from './media/music-jobs.js';
import {
  createTopazImageJob,
  createTopazVideoJob,
  getTopazImageJob,
  getTopazVideoJob,
  listTopazModels,
} from './media/topaz-jobs.js';
import { createVideoJob, estimateVideoJob, finalizeVideoJob, getVideoJob } from './media/video-jobs.js';
import { createDeposit, getDeposit, listDeposits } from './payments/deposits.js';
import { exportPayments } from './payments/export-payments.js';
import { receiveStripeWebhook, receiveYookassaWebhook } from './payments/webhooks.js';
import {
  addWithdrawalAddress,
  listWithdrawalAddresses,
  removeWithdrawalAddress,
} from './payments/withdrawal-addresses.js';
import { createWithdrawal, getWithdrawal, listWithdrawals } from './payments/withdrawals.js';
import { createEmbeddings } from './retrieval/create-embeddings.js';
import { createRerank } from './retrieval/create-rerank.js';
import { getRubBilling } from './settings/get-rub-billing.js';
import { getNotificationSettings, setNotificationSettings } from './settings/notification-settings.js';
import { setRubBilling } from './settings/set-rub-billing.js';
import { addSshKey, deleteSshKey, listSshKeys } from './settings/ssh-keys.js';
import { getHealth } from './system/get-health.js';
import { getMetrics } from './system/get-metrics.js';
import { getReadiness } from './system/get-readiness.js';
import { getReferencePage } from './system/get-reference-page.js';
import { getOpenapiJson, getOpenapiYaml } from './system/openapi-document.js';
import { exportUsage } from './usage/export-usage.js';
import { getUsageActivity } from './usage/get-usage-activity.js';
import { getUsageBreakdown } from './usage/get-usage-breakdown.js';
import { getUsageCalendar } from './usage/get-usage-calendar.js';
import { getUsageHistory } from './usage/get-usage-history.js';
import { getUsageRequest } from './usage/get-usage-request.js';
import { listUsageRequests } from './usage/list-usage-requests.js';

/** operationId → handler; `satisfies` makes the map exhaustive over the contract (DESIGN.md 1). */
export const handlers = {
  createDeposit,
  listDeposits,
  getDeposit,
  exportPayments,
  createWithdrawal,
  listWithdrawals,
  getWithdrawal,
  addWithdrawalAddress,
  listWithdrawalAddresses,
  removeWithdrawalAddress,
  receiveStripeWebhook,
  receiveYookassaWebhook,
  signUp,
  confirmEmail,
  resendConfirmation,
  signIn,
  refreshSession,
  listSessions,
  revokeSession,
  revokeAllSessions,
  requestPasswordReset,
  confirmPasswordReset,
  enrolTotp,
  confirmTotp,
  disableTotp,
  changeEmail,
  changePassword,
  deleteAccount,
  listOffers,
  listSshKeys,
  addSshKey,
  deleteSshKey,
  createRecommendation,
  createBurstOrder,
  estimateBurstOrder,
  checkBurstImage,
  listBurstOrders,
  getBurstOrder,
  startBurstOrder,
  stopBurstOrder,
  deleteBurstOrder,
  listBurstOrderTransactions,
  listBurstOrderHistory,
  createInstance,
  listInstances,
  getInstance,
  startInstance,
  stopInstance,
  deleteInstance,
  ensureSshProxy,
  createVolume,
  listVolumes,
  getVolume,
  deleteVolume,
  waitForTunnels,
  getProviderEarnings,
  registerMachine,
  listMachines,
  updateMachineListing,
  machineHeartbeat,
  getHealth,
  getReadiness,
  getHostedFile,
  estimateImageJob,
  createImage,
  createImageJob,
  getImageJob,
  createAudioJob,
  getAudioJob,
  estimateAudioJob,
  createMusicJob,
  getMusicJob,
  estimateMusicJob,
  createVideoJob,
  getVideoJob,
  finalizeVideoJob,
  estimateVideoJob,
  listTopazModels,
  createChat,
  listChats,
  getChat,
  createChatMessage,
  getChatImageJob,
  createTopazImageJob,
  getTopazImageJob,
  createTopazVideoJob,
  getTopazVideoJob,
  createCompatImage,
  getModelCatalog,
  listCompatModels,
  getCompatModel,
  listApiKeys,
  createApiKey,
  revokeApiKey,
  updateApiKey,
  getAccount,
  listUsageRequests,
  getUsageRequest,
  getUsageHistory,
  getUsageBreakdown,
  exportUsage,
  getUsageActivity,
  getUsageCalendar,
  getRubBilling,
  setRubBilling,
  getNotificationSettings,
  setNotificationSettings,
  createCompatChatCompletion,
  createNativeChatCompletion,
  createResponse,
  createCompatResponse: createResponse,
  createChatJob,
  getChatJob,
  createEmbeddings,
  createRerank,
  getModelPerformance,
  getMetrics,
  getOpenapiJson,
  getOpenapiYaml,
  getReferencePage,
} satisfies HandlerMap;
