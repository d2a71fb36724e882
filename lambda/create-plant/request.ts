/** Turns a POST /plants event into a NewPlant: the JSON body, validated by the NewPlant schema. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { readJsonBody } from '../plants/json-body';
import { NewPlant } from '../plants/schemas';

export { MAX_BODY_BYTES } from '../plants/json-body';

/** Reads, checks and validates the body of a create-plant request. */
export function readNewPlant(event: APIGatewayProxyEventV2): NewPlant {
  return readJsonBody(event, NewPlant);
}
