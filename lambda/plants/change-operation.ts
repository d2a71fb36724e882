/**
 * The operation of a change (PUT and PATCH share all but their body): path id, `If-Match`, the
 * body read into a change, one conditional write, and the plant with its `ETag`. Each function's
 * handler runs it on its store narrowed to its own grants, so a grant without `update` fails to
 * compile there.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { PlantsOperation } from './handler';
import { readPlantId } from './request';
import { changePlant } from './change-plant';
import { plantResponse, readIfMatch } from './conditional';
import type { PlantChange } from './item';
import type { PlantsStore } from './table';

/** The operation of a change, given how it reads its body into a change. */
export function changeOperation(
  readChange: (event: APIGatewayProxyEventV2, id: bigint) => PlantChange,
): PlantsOperation<Pick<PlantsStore, 'update'>> {
  return async ({ event, plants, principal, log }) => {
    const id = readPlantId(event);
    log.set({ plantId: String(id) });
    const ifMatch = readIfMatch(event);
    const change = readChange(event, id);
    const changed = await changePlant(plants, id, change, { ifMatch, by: principal.tokenId });
    return { outcome: 'updated', response: plantResponse(changed) };
  };
}
