/**
 * Jest's order of suites, longest first so that no worker is left with a long suite at the end,
 * with a better guess for a suite Jest has not timed yet (a fresh clone, as in CI): Jest's own
 * guess is the file's size, which put suites that wait on HTTP and child processes for a minute
 * behind unit suites ten times their size. Here the guess is the suite's kind (`e2e/` runs the
 * local runtime, `integration/` real engines and processes, `infra/` synthesizes stacks), then its
 * size. Once a suite has run, its measured time decides, as in Jest.
 * (Plain JavaScript: Jest loads this before any transform is set up.)
 */
const Sequencer = require('@jest/test-sequencer').default;

/** A guessed duration in ms for each kind of suite. */
const GUESS = [
  [/[\\/]e2e[\\/]/, 45_000],
  [/[\\/]integration[\\/]/, 15_000],
  [/[\\/]infra[\\/]/, 10_000],
];

class KindFirstSequencer extends Sequencer {
  time(test) {
    const measured = super.time(test);
    if (measured !== undefined) return measured;
    const [, ms = 2_000] = GUESS.find(([pattern]) => pattern.test(test.path)) ?? [];
    return ms + (test.context.hasteFS.getSize(test.path) ?? 0) / 10;
  }
}

module.exports = KindFirstSequencer;
