/**
 * Docker image references parsed exactly as `docker pull` parses them: the grammar of distribution/reference
 * (regexp.go) and its normalisation (normalize.go, ParseNormalizedNamed + TagNameOnly), with digests validated as
 * opencontainers/go-digest does. Pure: no I/O, so a bad reference is refused before anything is sent.
 *
 *   reference := name [ ":" tag ] [ "@" digest ]
 *   name      := [ domain "/" ] path-component [ "/" path-component ]*
 *   domain    := host [ ":" port ]           (a DNS name, IPv4, or [IPv6])
 *   tag       := [\w][\w.-]{0,127}
 */
import { ImageRegistryError } from './index.js';

export interface ImageReference {
  /** `docker.io/library/ubuntu:24.04`: registry/repository, then `:tag` and/or `@digest` as given. */
  reference: string;
  /** The registry as named (`docker.io`, `localhost:5000`, `[::1]:5000`). */
  registry: string;
  /** The `host[:port]` the registry API answers on: Docker Hub's is registry-1.docker.io, others are the registry. */
  apiHost: string;
  repository: string;
  /** `latest` when the reference names neither tag nor digest (TagNameOnly); null with a digest and no tag. */
  tag: string | null;
  digest: string | null;
}

const DEFAULT_DOMAIN = 'docker.io';
/** "The Docker Index", the legacy name Docker canonicalises to docker.io. */
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
/** docker.io is a name for users; its registry API is served here (normalize.go says so). */
const DOCKER_HUB_API_HOST = 'registry-1.docker.io';
const OFFICIAL_REPO_PREFIX = 'library/';
const DEFAULT_TAG = 'latest';
/** NameTotalLengthMax: registry plus repository. */
const NAME_MAX_CHARS = 255;
/**
 * Longer than any valid reference (a 255-character name, a 128-character tag, a sha512 digest make 520), so
 * refusing more before any regular expression runs loses nothing and bounds the work hostile input can cause.
 */
const INPUT_MAX_CHARS = 1024;

// The pieces of regexp.go, in the same order and under the same names. Go's RE2 prefers the leftmost
// alternative as JavaScript does, so the captures are the same.
const alphanumeric = '[a-z0-9]+';
/** One period, one or two underscores, or any run of dashes. */
const separator = '(?:[._]|__|[-]+)';
const domainNameComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const optionalPort = '(?::[0-9]+)?';
const tag = '[\\w][\\w.-]{0,127}';
const digestPat = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}';
const ipv6address = '\\[(?:[a-fA-F0-9:]+)\\]';
const domainName = `${domainNameComponent}(?:\\.${domainNameComponent})*`;
const domainAndPort = `(?:${domainName}|${ipv6address})${optionalPort}`;
const pathComponent = `${alphanumeric}(?:${separator}${alphanumeric})*`;
const remoteName = `${pathComponent}(?:/${pathComponent})*`;
const namePat = `(?:${domainAndPort}/)?${remoteName}`;

const REFERENCE = new RegExp(`^(${namePat})(?::(${tag}))?(?:@(${digestPat}))?$`);
const NAME = new RegExp(`^(?:(${domainAndPort})/)?(${remoteName})$`);
/** A bare image id: Docker refuses it as a repository name. */
const IDENTIFIER = /^[a-f0-9]{64}$/;
/** go-digest's registered algorithms and the length of their lower-case hex encoding. */
const DIGEST_HEX_CHARS: ReadonlyMap<string, number> = new Map([
  ['sha256', 64],
  ['sha384', 96],
  ['sha512', 128],
]);

/** The reference parsed and normalised, or an ImageRegistryError `invalid_reference` saying what is wrong. */
export function parseImageReference(input: string): ImageReference {
  if (input.length === 0) throw invalid('the image reference is empty');
  if (input.length > INPUT_MAX_CHARS) throw invalid(`the image reference is longer than ${INPUT_MAX_CHARS} characters`);
  if (IDENTIFIER.test(input)) throw invalid('an image id (64 hexadecimal characters) is not a repository name');
  const [domain, remainder] = splitDockerDomain(input);
  const colon = remainder.indexOf(':');
  const remote = colon === -1 ? remainder : remainder.slice(0, colon);
  if (remote.toLowerCase() !== remote) throw invalid(`the repository name (${remote}) must be lowercase`);
  return parse(`${domain}/${remainder}`);
}

/** normalize.go splitDockerDomain: whether the first path element names a registry, and Docker Hub's defaults. */
function splitDockerDomain(name: string): [string, string] {
  const slash = name.indexOf('/');
  // A single element ("ubuntu", "ubuntu:24.04", even "localhost:5000") is an official image on Docker Hub.
  if (slash === -1) return [DEFAULT_DOMAIN, OFFICIAL_REPO_PREFIX + name];
  const first = name.slice(0, slash);
  const rest = name.slice(slash + 1);
  let domain: string;
  let remote: string;
  if (first === 'localhost' || /[.:]/.test(first) || first.toLowerCase() !== first) {
    // localhost is reserved; a dot or colon means a host name, address or port; upper case cannot be a namespace.
    [domain, remote] = [first === LEGACY_DEFAULT_DOMAIN ? DEFAULT_DOMAIN : first, rest];
  } else {
    [domain, remote] = [DEFAULT_DOMAIN, name];
  }
  // "docker.io/ubuntu" is the official image too, but only on Docker Hub.
  if (domain === DEFAULT_DOMAIN && !remote.includes('/')) remote = OFFICIAL_REPO_PREFIX + remote;
  return [domain, remote];
}

/** reference.go Parse on the normalised string, then TagNameOnly. */
function parse(normalised: string): ImageReference {
  const match = REFERENCE.exec(normalised);
  if (match === null) {
    if (REFERENCE.test(normalised.toLowerCase())) throw invalid('the repository name must be lowercase');
    throw invalid('not a valid image reference (expected [registry/]repository[:tag][@digest])');
  }
  const [, name = '', givenTag, givenDigest] = match;
  if (name.length > NAME_MAX_CHARS) throw invalid(`the repository name is longer than ${NAME_MAX_CHARS} characters`);
  const [, registry = '', repository = ''] = NAME.exec(name) ?? [];
  // Docker's Parse lets a first element that looks like a host but is not one ("a_b.c/app") fall back into the
  // path, leaving no registry at all; there is nothing to ask then.
  if (registry === '') throw invalid(`${name.slice(0, name.indexOf('/'))} is not a valid registry host`);
  // The grammar lets through what no URL can name (`[:::::]`, a port above 65535): refused here, not at connect time.
  if (!URL.canParse(`http://${registry}/`)) throw invalid(`${registry} is not a valid registry host or port`);
  const digest = givenDigest === undefined ? null : validDigest(givenDigest);
  const tagOut = givenTag ?? (digest === null ? DEFAULT_TAG : null);
  const reference = `${registry}/${repository}${tagOut === null ? '' : `:${tagOut}`}${digest === null ? '' : `@${digest}`}`;
  return {
    reference,
    registry,
    apiHost: registry === DEFAULT_DOMAIN ? DOCKER_HUB_API_HOST : registry,
    repository,
    tag: tagOut,
    digest,
  };
}

/** go-digest Parse: a registered algorithm, and its hash in lower-case hex of exactly the right length. */
function validDigest(digest: string): string {
  const problem = digestProblem(digest);
  if (problem !== null) throw invalid(problem);
  return digest;
}

/**
 * What is wrong with `digest` as go-digest reads it, or null. Registries' answers are checked with it too: a digest
 * an index names is hashed with its algorithm and put into a URL, so only the registered ones may pass.
 */
export function digestProblem(digest: string): string | null {
  const colon = digest.indexOf(':');
  const algorithm = colon === -1 ? '' : digest.slice(0, colon);
  const hex = digest.slice(colon + 1);
  const chars = DIGEST_HEX_CHARS.get(algorithm);
  if (chars === undefined)
    return `unsupported digest algorithm ${JSON.stringify(algorithm.slice(0, 16))} (sha256, sha384 or sha512)`;
  if (hex.length !== chars || !/^[a-f0-9]+$/.test(hex))
    return `a ${algorithm} digest is ${chars} lower-case hexadecimal characters`;
  return null;
}

function invalid(message: string): ImageRegistryError {
  return new ImageRegistryError('invalid_reference', message);
}
