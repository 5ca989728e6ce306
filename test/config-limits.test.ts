// The connection, fairness and proxy settings are validated at boot like every other variable:
// defaults when unset, a clear error naming the variable when wrong.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config/index.ts';
import { TEST_SECRETS_KEY } from './helpers/app.ts';

const load = (env: Record<string, string>) =>
  loadConfig({ NODE_ENV: 'test', SECRETS_KEY: TEST_SECRETS_KEY, ...env });
const refused = (env: Record<string, string>, variable: string) => {
  let error: unknown;
  try {
    load(env);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).variable).toBe(variable);
};

describe('HTTP limits, fairness and proxy settings', () => {
  it('have defaults', () => {
    const c = load({});
    expect(c.http).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      idleTimeoutMs: 15_000,
      keepAliveTimeoutMs: 65_000,
      maxConnections: 2_000,
      maxConnectionsPerAddress: 500,
      trustProxy: null,
    });
    expect(c.fairness).toEqual({
      waitersPerCompany: 50,
      authFailuresPerWindow: 20,
      authFailureWindowSeconds: 10,
    });
  });

  it('take valid values', () => {
    const c = load({
      HTTP_HEADERS_TIMEOUT_MS: '5000',
      HTTP_REQUEST_TIMEOUT_MS: '5000',
      HTTP_MAX_CONNECTIONS: '64',
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: '8',
      TRUST_PROXY: '10.0.0.0/8, 2001:db8::/32,loopback,192.0.2.7',
      WAIT_MAX_PER_COMPANY: '0',
    });
    expect(c.http.maxConnections).toBe(64);
    expect(c.http.maxConnectionsPerAddress).toBe(8);
    expect(c.http.trustProxy).toEqual(['10.0.0.0/8', '2001:db8::/32', 'loopback', '192.0.2.7']);
    expect(c.fairness.waitersPerCompany).toBe(0);
  });

  it('refuse wrong values, naming the variable', () => {
    refused({ HTTP_HEADERS_TIMEOUT_MS: '40000' }, 'HTTP_HEADERS_TIMEOUT_MS'); // above the request's 30 s
    refused({ HTTP_REQUEST_TIMEOUT_MS: '0' }, 'HTTP_REQUEST_TIMEOUT_MS');
    refused({ HTTP_IDLE_TIMEOUT_MS: 'soon' }, 'HTTP_IDLE_TIMEOUT_MS');
    refused({ HTTP_MAX_CONNECTIONS: '0' }, 'HTTP_MAX_CONNECTIONS');
    refused({ HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0' }, 'HTTP_MAX_CONNECTIONS_PER_ADDRESS');
    refused({ HTTP_MAX_CONNECTIONS_PER_ADDRESS: 'many' }, 'HTTP_MAX_CONNECTIONS_PER_ADDRESS');
    refused({ TRUST_PROXY: 'true' }, 'TRUST_PROXY');
    refused({ TRUST_PROXY: '2' }, 'TRUST_PROXY');
    refused({ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY');
    refused({ TRUST_PROXY: 'proxy.internal' }, 'TRUST_PROXY');
    refused({ AUTH_FAILURE_LIMIT: '0' }, 'AUTH_FAILURE_LIMIT');
    refused({ AUTH_FAILURE_WINDOW_SECONDS: '-1' }, 'AUTH_FAILURE_WINDOW_SECONDS');
  });
});
