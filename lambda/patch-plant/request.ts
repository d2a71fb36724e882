/** Turns a PATCH /plants/{id} body, a JSON Merge Patch (RFC 7396), into the change it makes. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { requireSameId } from '../plants/change-plant';
import type { PlantChange } from '../plants/item';
import { MERGE_PATCH_BODY, readJsonBody } from '../plants/json-body';
import { PLANT_FIELD_NAMES, PlantPatch } from '../plants/schemas';

/** The patch: each member it names set (a string) or removed (`null`); the others kept. */
export function readPatch(event: APIGatewayProxyEventV2, id: bigint): PlantChange {
  const patch = readJsonBody(event, PlantPatch, MERGE_PATCH_BODY);
  requireSameId(patch, id);
  return Object.fromEntries(
    PLANT_FIELD_NAMES.filter((field) => patch[field] !== undefined).map((field) => [
      field,
      patch[field],
    ]),
  );
}
