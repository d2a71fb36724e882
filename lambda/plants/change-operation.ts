/**
 * The operation of a change (PUT and PATCH share all but their body): path id, preconditions,
 * the body read into a change, one conditional write, and the answer with its `ETag`. Each
 * function's handler runs it on its store narrowed to its own grants, so a grant without
 * `update` fails to compile there.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { emptyResponse } from '../http/answers';
import { PLANTS_READ, type Principal } from '../tokens/principal';
import type { PlantsOperation } from './handler';
import { readPlantId } from './request';
import { changePlant } from './change-plant';
import { plantResponse, readPreconditions } from './conditional';
import type { PlantChange } from './item';
import type { PlantsStore } from './table';
import { etagOf } from './versions';

/** The operation of a change, given how it reads its body into a change. */
export function changeOperation(
  readChange: (event: APIGatewayProxyEventV2, id: bigint) => PlantChange,
): PlantsOperation<Pick<PlantsStore, 'update'>> {
  return async ({ event, plants, principal, log }) => {
    const id = readPlantId(event);
    log.set({ plantId: String(id) });
    const preconditions = readPreconditions(event);
    const change = readChange(event, id);
    const changed = await changePlant(plants, id, change, {
      ...preconditions,
      by: principal.tokenId,
    });
    const outcome = changed.unchanged ? 'unchanged' : 'updated';
    // Who sees what: the stored members only to a token that may read them.
    if (!mayRead(principal)) {
      return { outcome, response: emptyResponse(204, { etag: etagOf(changed.version) }) };
    }
    return { outcome, response: plantResponse(changed) };
  };
}

function mayRead(principal: Principal): boolean {
  return principal.scopes.split(' ').includes(PLANTS_READ);
}
