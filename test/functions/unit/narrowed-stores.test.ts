/**
 * A function's code sees its stores narrowed to the methods its registry entry grants (its
 * folder's `grants.ts`): a call to any other method does not compile. Each case compiles a small
 * module beside the function's code with the project's compiler settings; the twin that calls a
 * granted method compiles clean, so the refusal is the narrowing's and nothing else's.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { FUNCTION_NAMES, FUNCTIONS } from '../../../lib/definitions/functions';

const ROOT = join(__dirname, '../../..');

/** The project's compiler options (tsconfig.json). */
const OPTIONS = (() => {
  const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config, ts.sys, ROOT).options;
})();

/**
 * Type-checks `modules`, each a module in its folder (imports relative to it), in one program:
 * the project's files are checked once for all of them. Answers each one's errors, in order.
 */
function errorsOfAll(modules: readonly (readonly [folder: string, code: string])[]): string[][] {
  const files = modules.map(([folder], i) => join(ROOT, folder, `narrowing-check-${i}.ts`));
  const codes = new Map(files.map((file, i) => [file, modules[i]![1]]));
  const host = ts.createCompilerHost(OPTIONS);
  const { getSourceFile, fileExists } = host;
  host.getSourceFile = (name, language, ...rest) => {
    const code = codes.get(name);
    return code === undefined
      ? getSourceFile.call(host, name, language, ...rest)
      : ts.createSourceFile(name, code, language);
  };
  host.fileExists = (name) => codes.has(name) || fileExists.call(host, name);
  const program = ts.createProgram(files, OPTIONS, host);
  return files.map((file) =>
    ts
      .getPreEmitDiagnostics(program, program.getSourceFile(file))
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
  );
}

/** A case: its title, the folder, a module around a call, a granted call, a refused one. */
type Case = [string, string, (call: string) => string, string, string];

const CASES: Case[] = [
  // The plants handlers: each sees the table narrowed to its grants.ts.
  ...(
    [
      ['create-plant', 'putNew'],
      ['update-plant', 'update'],
      ['patch-plant', 'update'],
    ] as const
  ).map(([name, granted]): Case => [
    `${name} (plants: ${granted})`,
    `lambda/${name}`,
    (call) => `
      import { plantsHandler } from '../plants/handler';
      import { PLANTS_METHODS } from '../plants/table';
      import { ${name.toUpperCase().replace('-', '_')}_GRANTS as GRANTS } from './grants';
      export const h = plantsHandler<typeof GRANTS.tables.plants>(
        's',
        { ${granted}: PLANTS_METHODS.${granted} },
        async ({ plants }) => {
          ${call};
          throw new Error();
        },
      );`,
    `plants.${granted}`,
    'plants.get',
  ]),
  [
    'the deliverer (subscriptions: the receiver states it keeps)',
    'lambda/deliver',
    (call) => `
      import type { GateDeps } from './receiver-gate';
      export const use = (states: GateDeps['states']) => ${call};`,
    'states.record',
    'states.enable',
  ],
  [
    'the fan-out (deliveries: sendBatch)',
    'lambda/fan-out',
    (call) => `
      import type { FanOutDeps } from './fan-out';
      export const use = (queue: FanOutDeps['queue']) => ${call};`,
    'queue.sendBatch',
    'queue.send',
  ],
  [
    'the authorizer (tokens: get)',
    'lambda/authorizer',
    (call) => `
      import type { AuthorizerDeps } from './handler';
      export const use = (deps: Extract<AuthorizerDeps, { table: unknown }>) => deps.${call};`,
    'table.get',
    'table.put',
  ],
];

/** The handlers built on the change operation, and one of them with `grants` and `methods`. */
const CHANGE_HANDLERS = ['update-plant', 'patch-plant'];
const changeHandler = (grants: readonly string[], methods: readonly string[] | 'all' = grants) => `
  import { changeOperation } from '../plants/change-operation';
  import { plantsHandler } from '../plants/handler';
  ${methods.length > 0 ? "import { PLANTS_METHODS } from '../plants/table';" : ''}
  export const h = plantsHandler<readonly [${grants.map((g) => `'${g}'`).join(', ')}]>(
    's',
    ${methods === 'all' ? 'PLANTS_METHODS' : `{ ${methods.map((m) => `${m}: PLANTS_METHODS.${m}`).join(', ')} }`},
    changeOperation(() => ({})),
  );`;
/** The methods a handler binds, against its grants: each module compiles or fails as its test says. */
const BINDINGS = {
  granted: changeHandler(['update']),
  ungranted: changeHandler(['update'], ['update', 'get']),
  missing: changeHandler(['update'], []),
  all: changeHandler(['update'], 'all'),
  noUpdate: changeHandler(['get', 'scan']),
};

/** Every module the cases compile, checked together on first use. */
const MODULES: (readonly [string, string])[] = [
  ...CASES.flatMap(([, folder, code, ok, refused]) => [
    [folder, code(ok)] as const,
    [folder, code(refused)] as const,
  ]),
  ...CHANGE_HANDLERS.flatMap((name) =>
    Object.values(BINDINGS).map((code) => [`lambda/${name}`, code] as const),
  ),
];
let checked: string[][] | undefined;

/** The errors of `code` as a module in `folder`: one of MODULES. */
function errorsOf(folder: string, code: string): string[] {
  const index = MODULES.findIndex(([f, c]) => f === folder && c === code);
  if (index < 0) throw new Error(`not among the modules checked: ${code}`);
  checked ??= errorsOfAll(MODULES);
  return checked[index]!;
}

it.each(CASES)(
  '%s: a granted method compiles, another does not',
  (_, folder, code, ok, refused) => {
    expect(errorsOf(folder, code(ok))).toEqual([]);
    expect(errorsOf(folder, code(refused))).toEqual([
      expect.stringMatching(
        new RegExp(`^Property '${refused.split('.')[1]}' does not exist on type`),
      ),
    ]);
  },
);

it.each(FUNCTION_NAMES)(
  "%s: the registry's entry is its folder's grants.ts (one definition)",
  (name) => {
    const grants = jest.requireActual<Record<string, object>>(join(ROOT, 'lambda', name, 'grants'))[
      `${name.toUpperCase().replace(/-/g, '_')}_GRANTS`
    ];
    expect(grants).toBeDefined();
    expect(FUNCTIONS[name]).toMatchObject(grants!);
  },
);

it.each(CHANGE_HANDLERS)(
  '%s: the change operation needs update among the grants, or the handler does not compile',
  (name) => {
    expect(errorsOf(`lambda/${name}`, BINDINGS.granted)).toEqual([]);
    expect(errorsOf(`lambda/${name}`, BINDINGS.noUpdate)).toEqual([
      expect.stringContaining("Property 'update' is missing in type"),
    ]);
  },
);

it.each(CHANGE_HANDLERS)(
  '%s: the handler binds exactly the methods its grants name, or it does not compile',
  (name) => {
    expect(errorsOf(`lambda/${name}`, BINDINGS.ungranted)).toEqual([
      expect.stringMatching(
        /^Type '\(table: PlantsTableDeps, id: bigint\) => .*' is not assignable to type 'undefined'/,
      ),
    ]);
    expect(errorsOf(`lambda/${name}`, BINDINGS.missing)).toEqual([
      expect.stringContaining("Property 'update' is missing in type '{}'"),
    ]);
    expect(errorsOf(`lambda/${name}`, BINDINGS.all)).toEqual([
      expect.stringMatching(
        /Types of property '(putNew|get|delete|scan|queryByTag|storedImages)' are incompatible/,
      ),
    ]);
  },
);
