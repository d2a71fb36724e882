/**
 * `cdk synth --quiet` prints nothing while the functions bundle: CDK's `Bundling asset …` note is
 * dropped (stack.test.ts checks a whole synth writes nothing on stderr), and nothing else is, an
 * error included. The stderr seen here is a recorder put in place of the process's.
 */
import { withoutBundlingNote } from '../../lib/infra/constructs/service-function';

let written: string[];
beforeEach(() => {
  written = [];
  jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
});
afterEach(() => jest.restoreAllMocks());

it("drops CDK's note and passes every other line, and answers what build answers", () => {
  const built = withoutBundlingNote(() => {
    process.stderr.write('Bundling asset PlantStore/CreatePlant/Function/Code/Stage...\n');
    process.stderr.write('✘ [ERROR] Could not resolve "./nowhere"\n');
    process.stderr.write('Bundling asset is a phrase in this line, which is not the note\n');
    return 'built';
  });
  expect(built).toBe('built');
  expect(written).toEqual([
    '✘ [ERROR] Could not resolve "./nowhere"\n',
    'Bundling asset is a phrase in this line, which is not the note\n',
  ]);
});

it('puts stderr back after build, also when build throws, so a failure is printed in full', () => {
  expect(() =>
    withoutBundlingNote(() => {
      throw new Error('Failed to bundle asset PlantStore/CreatePlant/Function/Code/Stage');
    }),
  ).toThrow('Failed to bundle asset');
  process.stderr.write('Bundling asset PlantStore/GetPlant/Function/Code/Stage...\n');
  expect(written).toEqual(['Bundling asset PlantStore/GetPlant/Function/Code/Stage...\n']);
});
