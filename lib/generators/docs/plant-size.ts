/**
 * The `plant-size` block: the largest item a plant can be, attribute by attribute, what it
 * costs in DynamoDB units, and the largest list page, computed from the schema's limits by
 * `plantFigures()` (lib/generators/plant-figures.ts).
 */
import { format, plantFigures, READ_UNIT_BYTES, WRITE_UNIT_BYTES } from '../plant-figures';

/** Decimal kilobytes, as an answer's size is said. */
const kB = (bytes: number) => format(Math.round(bytes / 1000));

/** The block's markdown. */
export function plantSize(): string {
  const f = plantFigures();
  const item = format(f.itemBytes);
  const page = format(f.pageBytes);
  return [
    '| Attribute | Name bytes | Value bytes | Bytes |',
    '| --- | --- | --- | --- |',
    ...f.attributes.map(
      (a) => `| \`${a.attribute}\` | ${a.nameBytes} | ${a.rule} | ${format(a.bytes)} |`,
    ),
    `| **largest item** | | | **${item}** |`,
    '',
    `- The largest plant is one created over a deleted plant's tombstone (\`firstVersion\`, \`previousWriteId\`, \`previousCreateId\`) and then changed (\`version\`, \`updatedAt\`, \`updatedBy\`, \`writeId\`). A change or a delete of it writes **${f.writeUnits} WRU** (⌈${item} / ${format(WRITE_UNIT_BYTES)}⌉); a strongly consistent read of it is **${f.readUnits} RRU** (⌈${item} / ${format(READ_UNIT_BYTES)}⌉).`,
    `- The largest list page, ${f.pagePlants} such plants, scans ${page} bytes: **${f.pageReadUnits} RRU** (⌈${page} / ${format(READ_UNIT_BYTES)}⌉); its JSON answer is about ${kB(f.pageAnswerBytes)} KB with 4-byte characters, up to about ${kB(f.pageAnswerEscapedBytes)} KB with control characters (six bytes each, escaped).`,
  ].join('\n');
}
