/**
 * A function's code sees its stores narrowed to the methods its registry entry grants (its
 * folder's `grants.ts`): a call to any other method does not compile. Each case compiles a small
 * module beside the function's code with the project's compiler settings; the twin that calls a
 * granted method compiles clean, so the refusal is the narrowing's and nothing else's.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { FUNCTIONS } from '../../../lib/definitions/functions';
import { AUTHORIZER_GRANTS } from '../../../lambda/authorizer/grants';
import { CREATE_PLANT_GRANTS } from '../../../lambda/create-plant/grants';
import { DELIVER_GRANTS } from '../../../lambda/deliver/grants';
import { FAN_OUT_GRANTS } from '../../../lambda/fan-out/grants';

const ROOT = join(__dirname, '../../..');

/** The project's compiler options (tsconfig.json). */
const OPTIONS = (() => {
  const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config, ts.sys, ROOT).options;
})();

/** Type-checks `code` as a module in `folder` (imports relative to it); answers its errors. */
function errorsOf(folder: string, code: string): string[] {
  const file = join(ROOT, folder, 'narrowing-check.ts');
  const host = ts.createCompilerHost(OPTIONS);
  const { getSourceFile, fileExists } = host;
  host.getSourceFile = (name, language, ...rest) =>
    name === file
      ? ts.createSourceFile(name, code, language)
      : getSourceFile.call(host, name, language, ...rest);
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  const program = ts.createProgram([file], OPTIONS, host);
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(file))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

jest.setTimeout(120_000);

const CASES: [string, string, (call: string) => string, string, string][] = [
  [
    'create-plant (plants: putNew)',
    'lambda/create-plant',
    (call) => `
      import { plantsHandler } from '../plants/handler';
      import { CREATE_PLANT_GRANTS } from './grants';
      export const h = plantsHandler<typeof CREATE_PLANT_GRANTS.tables.plants>('s', async ({ plants }) => {
        ${call};
        throw new Error();
      });`,
    'plants.putNew',
    'plants.get',
  ],
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

it("the registry's entries are the functions' own grants (one definition)", () => {
  expect(FUNCTIONS.authorizer.tables).toBe(AUTHORIZER_GRANTS.tables);
  expect(FUNCTIONS['create-plant'].tables).toBe(CREATE_PLANT_GRANTS.tables);
  expect([FUNCTIONS['fan-out'].tables, FUNCTIONS['fan-out'].queues]).toEqual([
    FAN_OUT_GRANTS.tables,
    FAN_OUT_GRANTS.queues,
  ]);
  expect(FUNCTIONS.deliver).toMatchObject(DELIVER_GRANTS);
});
