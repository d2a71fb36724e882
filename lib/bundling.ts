/**
 * How functions are bundled, defined once: the stack hands these options to `NodejsFunction`,
 * and `npm start` and `npm run bench` build with esbuild from the same values.
 */
import { join } from 'node:path';

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
