/**
 * A plant's fields in the OpenAPI document's words, made from the schema's field list
 * (`PLANT_FIELDS`): the descriptions name every field and its rule, and a field added to the
 * schema is named there with no edit here.
 */
import { ruleInWords } from '../field-types';
import { inWords, PLANT_FIELD_NAMES, PLANT_FIELDS, type PlantField } from '../schemas';

const code = (field: string) => `\`${field}\``;
const required = PLANT_FIELD_NAMES.filter((field) => PLANT_FIELDS[field].required);
const optional = PLANT_FIELD_NAMES.filter((field) => !PLANT_FIELDS[field].required);

/** A field's rule: `a string (`null` is not) of at most 100`, `a number from 0 to 5 with at most 2 decimals`. */
function rule(field: PlantField, first: boolean): string {
  const notNull = field.required ? '' : ' (`null` is not)';
  if (field.type !== 'string') return `${ruleInWords(field)}${notNull}`;
  return `a string${notNull} of at most ${field.maxLength}${first ? ' characters' : ''}`;
}

/** `` `name` is a string of at most 1000 characters and `tag`, when present, a string (`null` is not) of at most 100 `` */
export const FIELD_RULES = inWords(
  PLANT_FIELD_NAMES.map((field, index) => {
    const entry: PlantField = PLANT_FIELDS[field];
    const present = entry.required ? '' : ', when present,';
    return `${code(field)}${present}${index === 0 ? ' is' : ''} ${rule(entry, index === 0)}`;
  }),
  'and',
);

/** `name and tag`: what a safe retry repeats. */
export const SAME_FIELDS = inWords(PLANT_FIELD_NAMES, 'and');

/** `` `tag` only if the plant has one ``: what an answer leaves out. */
export const OPTIONAL_ONLY_IF_SET = `${inWords(optional.map(code), 'and')} only if the plant has ${optional.length === 1 ? 'one' : 'them'}`;

/** `` `name`, and `tag` only if set ``: the members of a stored plant besides its id. */
export const STORED_MEMBERS = `${required.map(code).join(', ')}, and ${inWords(optional.map(code), 'and')} only if set`;
