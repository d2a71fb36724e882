/**
 * The handler of a change (PUT and PATCH share all but their body): scope, path id, `If-Match`,
 * the body read into a change, one conditional write, and the plant with its `ETag`.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { plantsHandler } from './handler';
import { PLANTS_WRITE } from '../tokens/principal';
import { readPlantId } from './request';
import { changePlant } from './change-plant';
import { plantResponse, readIfMatch } from './conditional';
import type { PlantChange } from './item';

/** The factory of a change's handler, given how it reads its body into a change. */
export function changeHandler(
  readChange: (event: APIGatewayProxyEventV2, id: bigint) => PlantChange,
) {
  return plantsHandler(PLANTS_WRITE, async ({ event, plants, principal, log }) => {
    const id = readPlantId(event);
    log.set({ plantId: String(id) });
    const ifMatch = readIfMatch(event);
    const change = readChange(event, id);
    const changed = await changePlant(plants, id, change, { ifMatch, by: principal.tokenId });
    return { outcome: 'updated', response: plantResponse(changed) };
  });
}
