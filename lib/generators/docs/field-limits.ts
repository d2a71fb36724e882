/**
 * The `field-limits` block: a plant's fields and their limits as a create takes them, from the
 * `NewPlant` schema of the OpenAPI document (which the schema's entries in
 * `lambda/plants/schemas.ts` build), so a field of any type shows its own bounds.
 */
import { buildDocument } from '../openapi/document';
import { schemaTable, type JsonSchema } from './schema-table';

/** The block's markdown. */
export function fieldLimits(): string {
  const { components } = buildDocument() as { components: { schemas: Record<string, JsonSchema> } };
  return schemaTable(components.schemas.NewPlant!);
}
