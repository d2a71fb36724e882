/**
 * How functions are bundled, defined once: the stack hands these options to `NodejsFunction`,
 * and `npm start` and `npm run bench` build with esbuild from the same values.
 */
import { join } from 'node:path';

/** The project root, for absolute entry paths. */
export const PROJECT_ROOT = join(__dirname, '..', '..');

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

/**
 * Modules replaced at build time by a file of ours (paths relative to the project root, where
 * both esbuild and the stack's bundling run), each kept only because it trims a cold start (the
 * import, measured on Lambda's Node with `npm run bench`, or a sandbox's first call) without
 * changing what a function does.
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  // Reached only by a dynamic import() that DynamoDB never takes; see the stub. ~20 KB and ~10 %.
  '@smithy/core/event-streams': './lambda/aws/stubs/no-event-streams.ts',
  // The global object itself, without the ESM wrapper of a built-in.
  'node:process': './lambda/aws/stubs/global-process.ts',
  // Node's module without its ESM wrapper, which loads undici (http:// endpoints: npm start's).
  'node:http': './lambda/aws/stubs/node-http.ts',
  // The same class on a Map, without mnemonist (~7 KB); see the file.
  '@aws-sdk/endpoint-cache': './lambda/aws/stubs/endpoint-cache.ts',
  // readFile on node:fs, and Node's fs module without its ESM wrapper: neither loads fs/promises.
  // In this order: esbuild also applies an alias to subpaths, so node:fs alone would take
  // node:fs/promises too (the variants phase adds them one at a time).
  'node:fs/promises': './lambda/aws/stubs/fs-promises.ts',
  'node:fs': './lambda/aws/stubs/node-fs.ts',
  // Every other built-in the bundles import, each without its ES module facade, which reads every
  // export of the module: about 2 ms of CPU at create-plant's cold import for its six (a test
  // keeps the list whole). Each stub takes Node's module with `process.getBuiltinModule` and
  // exports only the names the bundled modules import (esbuild checks those of modules it then
  // leaves out): a new one fails the build. An alias takes subpaths too: `node:stream/promises`
  // would need its own stub, listed before `node:stream`, as `node:fs/promises` is.
  'node:crypto': './lambda/aws/stubs/node-crypto.ts',
  'node:https': './lambda/aws/stubs/node-https.ts',
  'node:stream': './lambda/aws/stubs/node-stream.ts',
  'node:os': './lambda/aws/stubs/node-os.ts',
  'node:path': './lambda/aws/stubs/node-path.ts',
  'node:console': './lambda/aws/stubs/node-console.ts',
  'node:net': './lambda/aws/stubs/node-net.ts',
  'node:dns': './lambda/aws/stubs/node-dns.ts',
};

/**
 * Modules that must never enter a bundle (a test reads esbuild's metafile): what DynamoDB does
 * not use (other protocols, event streams, HTTP/2) and credential providers Lambda never calls.
 */
export const BANNED_MODULES: readonly RegExp[] = [
  /\/@smithy\/core\/dist-[a-z]+\/submodules\/event-streams\//,
  /\/@smithy\/core\/dist-[a-z]+\/submodules\/cbor\//,
  /\/@smithy\/eventstream-/,
  /\/@aws-sdk\/core\/dist-[a-z]+\/submodules\/protocols\/(?:cbor|query|xml)\//,
  /\/@aws-sdk\/core\/dist-[a-z]+\/submodules\/protocols\/json\/AwsRestJsonProtocol/,
  /\/@smithy\/node-http-handler\/dist-[a-z]+\/(?:http2\/|node-http2)/,
  /\/@aws-sdk\/credential-provider-(?:ini|sso|process|web-identity|http|login)\//,
  /\/@smithy\/credential-provider-imds\//,
  /\/@aws-sdk\/(?:client-sso|client-sso-oidc|nested-clients|token-providers)\//,
  // Replaced by our endpoint cache (BUNDLE_ALIASES).
  /\/@aws-sdk\/endpoint-cache\//,
  /\/mnemonist\//,
];

/**
 * ESM output may still meet CommonJS inside a dependency that `require`s one of Node's built-ins
 * (none does today): `require` is `process.getBuiltinModule`, which loads nothing until it is
 * called. `createRequire` loaded `node:module` at every cold start for nothing. Anything but a
 * built-in is in the bundle or external, so requiring it throws, naming it. No `$` or backquote:
 * CDK passes the banner to esbuild through a shell, in double quotes.
 */
export const ESM_REQUIRE_BANNER =
  "const require=(id)=>process.getBuiltinModule(id)??(()=>{throw new Error('not a built-in module: '+id)})();";

/**
 * Node's options for every function: the stack sets them as `NODE_OPTIONS`, `npm start` starts
 * its sandboxes with them. None: `--enable-source-maps` parsed each bundle's map at every cold
 * start (~15 ms of CPU); the functions map a stack trace to its `lambda/…/*.ts` lines themselves,
 * reading the map only when an error's stack is formatted (`lambda/observability/stack-map.ts`;
 * `npm run bench -- --phases readable`, docs/performance.md).
 */
export const FUNCTION_NODE_OPTIONS: readonly string[] = [];

/** The esbuild options every function is built with, in esbuild's own terms. */
export const ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: `node${NODE_MAJOR}`,
  minify: true,
  // Readable errors without esbuild's `keepNames`, whose helper call per function and class ran
  // at every cold start (1-5 ms of CPU and 15-22 KiB a bundle: `npm run bench -- --phases
  // readable`): each error class names itself (`ServiceUnavailable`, not `Mr`), and a
  // linked `index.mjs.map` beside the bundle gives a stack trace its TypeScript lines and the
  // names minifying took (lambda/observability/stack-map.ts). The map carries no sources' text.
  // The SDK knows its default logger by its class's name: the clients get ours (sdk-client.ts).
  keepNames: false,
  sourcemap: 'linked',
  sourcesContent: false,
  // Prefer the packages' ES module builds: smaller, and tree-shaken.
  mainFields: ['module', 'main'],
  external: [...UNUSED_CREDENTIAL_PROVIDERS],
  alias: BUNDLE_ALIASES,
  banner: { js: ESM_REQUIRE_BANNER },
  outExtension: { '.js': '.mjs' },
  legalComments: 'none',
  // A module that reads a name a stub does not export (`import * as fs`, then `fs.writeFileSync`)
  // fails the build, as a named import of it does, rather than getting `undefined` at run time.
  // A dependency's such read fails it too (esbuild only notes it there): a bundle has none.
  logOverride: { 'import-is-undefined': 'error' },
} as const;
