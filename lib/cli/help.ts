/** The rows of a command's help that list settings (flags, environment variables), from their definition. */
import type { Setting } from '../definitions/settings';

/** Where a row's meaning starts, and the width it wraps at. */
const NAME_WIDTH = 34;
const WIDTH = 100;

/** One row per setting: its name, then its meaning and default, wrapped under the meaning. */
export function helpRows(settings: readonly (readonly [string, Setting])[]): string {
  return settings
    .map(([name, { meaning, default: fallback }]) => {
      const text = fallback === undefined ? meaning : `${meaning} [default: ${fallback}]`;
      const lines: string[] = [];
      let line = '';
      for (const word of text.split(' ')) {
        if (line !== '' && NAME_WIDTH + line.length + 1 + word.length > WIDTH) {
          lines.push(line);
          line = word;
        } else line = line === '' ? word : `${line} ${word}`;
      }
      lines.push(line);
      const first = `  ${name}`;
      const head =
        first.length < NAME_WIDTH
          ? first.padEnd(NAME_WIDTH)
          : `${first}\n${' '.repeat(NAME_WIDTH)}`;
      return head + lines.join(`\n${' '.repeat(NAME_WIDTH)}`);
    })
    .join('\n');
}
