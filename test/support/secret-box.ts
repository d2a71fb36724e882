/**
 * A secret box for unit tests that need no KMS: it keeps the secret as it is, marked `test:`.
 * Only tests use it; every function and CLI seals with KMS (npm start's, locally).
 */
import type { SecretBox } from '../../lambda/webhook/secrets';

const PREFIX = 'test:';

/** Seals by prefixing, opens what it sealed. */
export const TEST_SECRET_BOX: SecretBox = {
  seal: async (secret) => `${PREFIX}${secret}`,
  async open(sealed, subscriberId) {
    if (!sealed.startsWith(PREFIX))
      throw new Error(`the secret of ${subscriberId} is not a test one`);
    return sealed.slice(PREFIX.length);
  },
};
