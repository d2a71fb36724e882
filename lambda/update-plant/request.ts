/** Turns a PUT /plants/{id} body into the change it makes: every member replaced. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { requireSameId } from '../plants/change-plant';
import type { PlantChange } from '../plants/item';
import { readJsonBody } from '../plants/json-body';
import { PLANT_FIELD_NAMES, PlantReplacement } from '../plants/schemas';

/** The body, checked as POST checks its own: each member set, or removed when left out. */
export function readReplacement(event: APIGatewayProxyEventV2, id: bigint): PlantChange {
  const body = readJsonBody(event, PlantReplacement);
  requireSameId(body, id);
  return Object.fromEntries(PLANT_FIELD_NAMES.map((field) => [field, body[field] ?? null]));
}
