/**
 * The Docker image size check of burst orders (SPEC 4.5): the image's size from its registry against the disk a
 * rental would have. What the registry cannot tell (a missing or private image, a bad reference, a registry at a
 * private address) is the caller's to fix; a registry that does not answer is retryable.
 */
import { type ImageRegistry, ImageRegistryError, type ImageSize } from '../../adapters/image-registry/index.js';
import { ApiError, invalidField } from '../../errors/api-error.js';

const GB = 1024 ** 3;

export interface ImageCheck {
  image: ImageSize;
  estimatedDiskGb: number;
  diskGb: number;
  fits: boolean;
}

export async function checkImage(registry: ImageRegistry, dockerImage: string, diskGb: number): Promise<ImageCheck> {
  let image: ImageSize;
  try {
    image = await registry.imageSize(dockerImage);
  } catch (err) {
    if (!(err instanceof ImageRegistryError)) throw err;
    if (err.kind === 'unreachable')
      throw new ApiError('provider_unavailable', `The registry of ${dockerImage} did not answer: ${err.message}`);
    throw invalidField(['body', 'docker_image'], `${err.kind}: ${err.message}`);
  }
  const estimatedDiskGb = Math.round((image.estimatedDiskBytes / GB) * 100) / 100;
  return { image, estimatedDiskGb, diskGb, fits: image.estimatedDiskBytes <= diskGb * GB };
}
