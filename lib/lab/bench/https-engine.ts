/**
 * dynalite over HTTPS on loopback, as DynamoDB is reached from Lambda (TLS, a fresh connection on
 * cold start), with a certificate made for the run that measured children trust through
 * `NODE_EXTRA_CA_CERTS` naming only that certificate.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { TABLES } from '../../../lambda/aws/tables';
import { createTables, LOCAL_REGION } from '../../npm-start/in-process';

/** A running HTTPS engine. */
export interface HttpsEngine {
  /** `https://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** The PEM file of the engine's self-signed certificate. */
  readonly certFile: string;
  /** Client settings for this process (trusting the certificate through an agent). */
  readonly clientConfig: DynamoDBClientConfig;
  close(): Promise<void>;
}

/** Starts dynalite with TLS in memory, with every table, its certificate written under `dir`. */
export async function startHttpsEngine(dir: string): Promise<HttpsEngine> {
  const keyFile = join(dir, 'engine-key.pem');
  const certFile = join(dir, 'engine-cert.pem');
  // dynalite's bundled certificate expired in 2018 and names no IP address.
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(certFile);
  const server = dynalite({
    ssl: true,
    key: readFileSync(keyFile),
    cert,
    ca: cert,
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientConfig: DynamoDBClientConfig = {
    endpoint,
    region: LOCAL_REGION,
    // dynalite alone, behind no gate (the bench measures the engine's HTTPS): any keys do.
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestHandler: { httpsAgent: new Agent({ ca: cert, keepAlive: true }) },
  };
  await createTables(clientConfig, TABLES);
  return {
    endpoint,
    certFile,
    clientConfig,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
