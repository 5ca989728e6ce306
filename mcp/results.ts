// What a tool answers: the service's JSON as text, or a tool error (isError) carrying the
// service's problem+json as it came (code, status, detail, the fields at fault, the scope a key
// lacks), its first line readable by a person. A failure to reach the service is an error too.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FacturaApiError } from '../client/src/index.ts';

export function ok(data: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data, null, 2) }] };
}

/** The error a tool answers, built from what was thrown. */
export function failure(err: unknown): CallToolResult {
  const error = describe(err);
  const fields = error.fields.map((f) => `${f.path} ${f.code}`).join(', ');
  const scope = error.required_scope ? ` (${[error.required_scope].flat().join(' | ')})` : '';
  const headline = `${error.status ?? '—'} ${error.code}${scope}: ${error.detail}${fields ? ` [${fields}]` : ''}`;
  return {
    isError: true,
    content: [
      { type: 'text', text: headline },
      { type: 'text', text: JSON.stringify({ error }, null, 2) },
    ],
  };
}

interface ToolError {
  status: number | null;
  code: string;
  detail: string;
  fields: { path: string; code: string; message?: string }[];
  required_scope?: string | string[];
  request_id?: string | null;
  type?: string;
  problem?: unknown;
}

function describe(err: unknown): ToolError {
  if (err instanceof FacturaApiError) {
    const problem = (err.problem ?? {}) as Record<string, unknown>;
    const scope = problem.required_scope as string | string[] | undefined;
    return {
      status: err.status,
      code: err.code,
      detail: err.problem?.detail ?? err.message,
      fields: err.fieldErrors.map((f) => ({ path: f.path, code: f.code, message: f.message })),
      ...(scope ? { required_scope: scope } : {}),
      request_id: err.requestId,
      ...(err.problem ? { type: err.problem.type, problem: err.problem } : {}),
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  // fetch's TypeError ("fetch failed"): nothing answered at FACTURA_API_URL.
  if (err instanceof TypeError)
    return {
      status: null,
      code: 'service_unreachable',
      detail: `El servicio no respondió / The service did not answer: ${message}`,
      fields: [],
    };
  return { status: null, code: 'tool_failed', detail: message, fields: [] };
}

/** Runs a tool's work and answers its result or its error. */
export async function run(work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return ok(await work());
  } catch (err) {
    return failure(err);
  }
}
