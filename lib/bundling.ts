/**
 * The functions and how they are bundled, defined once: the stack hands these options to
 * `NodejsFunction`, and `npm start` and `npm run bench` build with esbuild from the same values.
 */
import { join } from 'node:path';

/** The functions, by the name the API definition and the logs use. */
export type FunctionName = 'authorizer' | 'create-plant';

/** What the stack and the local runtime need to know about a function. */
export interface FunctionDefinition {
  /** The TypeScript entry point, relative to the project root. */
  readonly entry: string;
  /** Environment variables the function requires (read once at cold start). */
  readonly environment: readonly string[];
  /**
   * Memory in MB. 256 for both: Lambda gives CPU in proportion to memory, and at 128 MB the
   * cold import of the SDK takes about twice as long; both functions use far less than 100 MB.
   */
  readonly memorySize: number;
  /** Lambda timeout in seconds. */
  readonly timeoutSeconds: number;
}

/**
 * Timeouts: the SDK makes at most 3 attempts of at most 2 s each plus backoff, so 10 s always
 * covers a create-plant call's retries and answers 503 itself rather than timing out. The
 * authorizer's 10 s is the gateway's own limit for an authorizer.
 */
export const FUNCTIONS: Readonly<Record<FunctionName, FunctionDefinition>> = {
  authorizer: {
    entry: 'lambda/authorizer/index.ts',
    environment: ['TOKENS_TABLE_NAME'],
    memorySize: 256,
    timeoutSeconds: 10,
  },
  'create-plant': {
    entry: 'lambda/create-plant/index.ts',
    environment: ['PLANTS_TABLE_NAME'],
    memorySize: 256,
    timeoutSeconds: 10,
  },
};

/** The project root, for absolute entry paths. */
export const PROJECT_ROOT = join(__dirname, '..');

/** Node.js major version of the Lambda runtime; the bundles target it. */
export const NODE_MAJOR = 24;

/**
 * Credential providers Lambda never uses: a function's role arrives in environment variables,
 * which `fromEnv` reads. The default chain loads the others with dynamic `import()`, so leaving
 * them out of the bundle costs nothing unless they would be called.
 */
export const UNUSED_CREDENTIAL_PROVIDERS: readonly string[] = [
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/credential-provider-http',
  '@aws-sdk/credential-provider-login',
  '@smithy/credential-provider-imds',
  '@aws-sdk/token-providers',
  '@aws-sdk/client-sso',
  '@aws-sdk/client-sso-oidc',
  '@aws-sdk/nested-clients',
];

/** ESM output still meets CommonJS inside dependencies that `require` Node's built-ins. */
export const ESM_REQUIRE_BANNER =
  "import{createRequire as __cr}from'module';const require=__cr(import.meta.url);";

/** The esbuild options every function is built with, in esbuild's own terms. */
export const ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: `node${NODE_MAJOR}`,
  minify: true,
  sourcemap: false,
  // Prefer the packages' ES module builds: smaller, and tree-shaken.
  mainFields: ['module', 'main'],
  external: [...UNUSED_CREDENTIAL_PROVIDERS],
  banner: { js: ESM_REQUIRE_BANNER },
  outExtension: { '.js': '.mjs' },
  legalComments: 'none',
} as const;
