/** Turns a PUT /plants/{id} body into the change it makes: every member replaced. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { requireSameId } from '../plants/change-plant';
import type { PlantChange } from '../plants/item';
import { PLANT_BODY, readJsonBody } from '../plants/json-body';
import { PLANT_FIELD_NAMES, PlantReplacement } from '../plants/schemas';

/** The body, checked as POST checks its own (a patch document is no plant): each member set, or removed when left out. */
export function readReplacement(event: APIGatewayProxyEventV2, id: bigint): PlantChange {
  const body = readJsonBody(event, PlantReplacement, PLANT_BODY);
  requireSameId(body, id);
  return Object.fromEntries(PLANT_FIELD_NAMES.map((field) => [field, body[field] ?? null]));
}
