// The reference of the codes about the request itself: its HTTP, body, route, size and pace, and
// the service's own failures.
import { say, type ReferencePart } from './entry.ts';

type RequestCode =
  | 'invalid_json'
  | 'invalid_request'
  | 'ambiguous_authorization'
  | 'route_not_found'
  | 'resource_not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation_failed'
  | 'nesting_too_deep'
  | 'idempotency_key_in_use'
  | 'idempotency_key_reused'
  | 'rate_limited'
  | 'auth_rate_limited'
  | 'headers_too_large'
  | 'internal_error'
  | 'service_unavailable';

export const REQUEST_ERRORS: ReferencePart<RequestCode> = {
  invalid_json: {
    titleEs: 'Cuerpo JSON mal formado',
    means: say(
      'El cuerpo enviado como application/json no es JSON válido (o está vacío donde la ruta lo necesita).',
      'The body sent as application/json is not valid JSON (or is empty where the route needs one).',
    ),
    fields: [],
    fix: say(
      'Envíe un solo objeto JSON bien formado, codificado en UTF-8, con Content-Type: application/json.',
      'Send one well-formed JSON object, UTF-8 encoded, with Content-Type: application/json.',
    ),
    detail: 'The request body is not valid JSON',
  },
  invalid_request: {
    titleEs: 'Solicitud inválida',
    means: say(
      'La solicitud no se pudo atender tal como llegó: HTTP mal formado, una URL que no es codificación por ' +
        'porcentaje válida, un Content-Length que no coincide con el cuerpo, o un encabezado Factura-Mode que ' +
        'no es test ni live.',
      'The request could not be served as it came: malformed HTTP, a URL that is not valid percent-encoding, ' +
        'a Content-Length that does not match the body, or a Factura-Mode header that is neither test nor live.',
    ),
    fields: ['header:factura-mode'],
    fix: say(
      'Revise el detail: corrija la URL o los encabezados; Factura-Mode acepta test o live.',
      'Read the detail: correct the URL or the headers; Factura-Mode takes test or live.',
    ),
    detail: 'Factura-Mode is test or live',
    errors: [{ path: 'header:factura-mode', code: 'invalid_value', message: 'must be one of test, live' }],
  },
  ambiguous_authorization: {
    titleEs: 'Más de un encabezado Authorization',
    means: say(
      'La solicitud trae varios encabezados Authorization, o uno con varias credenciales separadas por ' +
        'comas: no se puede saber cuál quiso usar, así que no se lee ninguna.',
      'The request carries several Authorization headers, or one with several comma-separated credentials: ' +
        'there is no telling which one was meant, so none is read.',
    ),
    fields: [],
    fix: say(
      'Envíe exactamente un encabezado Authorization con una sola credencial; revise si un proxy agrega otro.',
      'Send exactly one Authorization header with one credential; check whether a proxy adds another.',
    ),
    detail: 'Send exactly one Authorization header with one credential; this request carries several',
  },
  route_not_found: {
    titleEs: 'Ruta no encontrada',
    means: say(
      'No hay ninguna ruta con ese método y esa ruta (path) en el servicio.',
      'No route of the service has that method and path.',
    ),
    fields: [],
    fix: say(
      'Compare el método y la ruta con la referencia en /docs; las rutas de la API empiezan con /api/v1/.',
      'Compare the method and path with the reference at /docs; API routes start with /api/v1/.',
    ),
    detail: 'No route GET /api/v1/invoice',
  },
  resource_not_found: {
    titleEs: 'Recurso no encontrado',
    means: say(
      'No existe el recurso con ese id para la empresa y el modo (test o live) de la credencial; un id de otra ' +
        'empresa o del otro modo tampoco se encuentra. También cuando `replaces` nombra una factura que no existe.',
      'There is no resource with that id for the company and mode (test or live) of the credential; an id of ' +
        'another company or of the other mode is not found either. Also when `replaces` names no invoice.',
    ),
    fields: ['/replaces'],
    fix: say(
      'Revise el id (prefijo y 12 dígitos, p. ej. inv_000000000042) y use una llave del mismo modo que lo creó.',
      'Check the id (prefix and 12 digits, e.g. inv_000000000042) and use a key of the mode that created it.',
    ),
    detail: 'No invoice with id inv_000000000042',
  },
  method_not_allowed: {
    titleEs: 'Método no permitido',
    means: say(
      'La ruta existe pero no acepta ese método HTTP.',
      'The route exists but does not take that HTTP method.',
    ),
    fields: [],
    fix: say(
      'Use el método que documenta /docs para esa ruta.',
      'Use the method /docs documents for that route.',
    ),
    detail: 'Method not allowed here',
  },
  request_timeout: {
    titleEs: 'Tiempo de solicitud agotado',
    means: say(
      'La solicitud completa (encabezados y cuerpo) no llegó a tiempo (HTTP_REQUEST_TIMEOUT_MS, 30 s por ' +
        'defecto; los encabezados en HTTP_HEADERS_TIMEOUT_MS, 10 s). La conexión se cierra.',
      'The whole request (headers and body) did not arrive in time (HTTP_REQUEST_TIMEOUT_MS, 30 s by default; ' +
        'the headers within HTTP_HEADERS_TIMEOUT_MS, 10 s). The connection is closed.',
    ),
    fields: [],
    fix: say(
      'Envíe la solicitud de una vez; con conexiones lentas, divida el trabajo (p. ej. lotes más pequeños).',
      'Send the request in one go; over slow links, split the work (e.g. smaller batches).',
    ),
    detail: 'The request was not received in time',
  },
  payload_too_large: {
    titleEs: 'Cuerpo demasiado grande',
    means: say(
      'El cuerpo supera el límite del servicio (1 MB por defecto).',
      "The body exceeds the service's limit (1 MB by default).",
    ),
    fields: [],
    fix: say(
      'Envíe menos datos por solicitud: divida un lote en varios o reduzca los archivos en base64.',
      'Send less per request: split a batch into several or shrink the base64 files.',
    ),
    detail: 'The request body is larger than the limit',
  },
  unsupported_media_type: {
    titleEs: 'Tipo de contenido no soportado',
    means: say(
      'La API solo lee cuerpos application/json; llegó otro Content-Type.',
      'The API reads application/json bodies only; another Content-Type came.',
    ),
    fields: [],
    fix: say(
      'Envíe el cuerpo como JSON con Content-Type: application/json (los archivos van en base64 dentro del JSON).',
      'Send the body as JSON with Content-Type: application/json (files go base64 inside the JSON).',
    ),
    detail: 'Send the body as application/json',
  },
  validation_failed: {
    titleEs: 'Validación fallida',
    means: say(
      'Uno o más campos no cumplen las reglas: tipo, formato, largo, valores permitidos, campos desconocidos ' +
        '(se rechazan, nunca se ignoran) o una regla de negocio (cédula, CABYS, totales, fechas). Cada campo ' +
        'con problema viene en errors[] con su ruta JSON Pointer y un código estable.',
      'One or more fields break the rules: type, format, length, allowed values, unknown fields (refused, never ' +
        'ignored) or a business rule (identification, CABYS, totals, dates). Every field at fault comes in ' +
        'errors[] with its JSON Pointer path and a stable code.',
    ),
    fields: ['errors[].path', 'errors[].code'],
    fix: say(
      'Corrija cada campo que nombra errors[].path (p. ej. /lines/0/qty) según su errors[].code y message, y ' +
        'envíe de nuevo. Nada se guardó.',
      'Correct each field errors[].path names (e.g. /lines/0/qty) as its errors[].code and message say, and ' +
        'send again. Nothing was stored.',
    ),
    detail: '/lines/0/qty: must be number,string',
    errors: [{ path: '/lines/0/qty', code: 'invalid_type', message: 'must be number,string' }],
  },
  nesting_too_deep: {
    titleEs: 'JSON anidado en exceso',
    means: say(
      'El cuerpo JSON anida objetos o listas a más de 32 niveles; ningún cuerpo válido de la API llega ahí.',
      'The JSON body nests objects or arrays more than 32 levels deep; no valid API body comes close.',
    ),
    fields: ['errors[].path'],
    fix: say(
      'Envíe la estructura que documenta /docs; revise si su serializador envuelve el cuerpo de más.',
      'Send the structure /docs documents; check whether your serializer wraps the body too often.',
    ),
    detail: 'The body nests objects and arrays deeper than 32 levels',
    errors: [{ path: '/a/a/a', code: 'nesting_too_deep', message: 'nested deeper than 32 levels' }],
  },
  idempotency_key_in_use: {
    titleEs: 'Clave de idempotencia en uso',
    means: say(
      'Otra solicitud con la misma Idempotency-Key todavía se está procesando.',
      'Another request with the same Idempotency-Key is still being processed.',
    ),
    fields: ['Retry-After'],
    fix: say(
      'Espere lo que dice Retry-After (1 s) y repita la misma solicitud: recibirá la respuesta de la primera.',
      'Wait as Retry-After says (1 s) and repeat the same request: you get the first one’s answer.',
    ),
    detail: 'A request with this Idempotency-Key is still being processed; retry shortly',
  },
  idempotency_key_reused: {
    titleEs: 'Clave de idempotencia reutilizada con otra solicitud',
    means: say(
      'La Idempotency-Key ya se usó (en las últimas 24 h, para la empresa y el modo) con un cuerpo o una ruta distintos.',
      'The Idempotency-Key was already used (in the last 24 h, for the company and mode) with another body or route.',
    ),
    fields: [],
    fix: say(
      'Use una clave nueva para cada operación distinta; repita una clave solo con la misma solicitud exacta.',
      'Use a new key for each distinct operation; repeat a key only with the very same request.',
    ),
    detail: 'This Idempotency-Key was used with a different request',
  },
  rate_limited: {
    titleEs: 'Demasiadas solicitudes',
    means: say(
      'Se superó el límite de solicitudes por segundo de la llave o de la empresa en ese modo (limit_scope), o ' +
        'hay demasiadas conexiones abiertas desde la misma dirección.',
      'The requests-per-second limit of the key or of the company in that mode (limit_scope) was reached, or ' +
        'too many connections are open from one address.',
    ),
    fields: ['limit', 'limit_scope', 'Retry-After'],
    fix: say(
      'Espere los segundos de Retry-After y reintente; reparta la carga (RateLimit-Policy dice la cuota) y ' +
        'reutilice conexiones.',
      'Wait the Retry-After seconds and retry; spread the load (RateLimit-Policy gives the quota) and reuse ' +
        'connections.',
    ),
    detail: 'This API key may make 50 requests per second; retry after 1 s',
    extra: { limit: 50, limit_scope: 'key' },
  },
  auth_rate_limited: {
    titleEs: 'Demasiadas autenticaciones fallidas',
    means: say(
      'Desde esta dirección llegaron demasiadas llaves de API que no existen; por un rato se rechaza toda ' +
        'llave desconocida de ahí.',
      'Too many API keys that do not exist came from this address; for a while every unknown key from it is refused.',
    ),
    fields: ['Retry-After'],
    fix: say(
      'Corrija la llave que usa su integración y espere los segundos de Retry-After.',
      'Correct the key your integration uses and wait the Retry-After seconds.',
    ),
    detail: 'Too many failed authentications from this address; retry after 30 s',
  },
  headers_too_large: {
    titleEs: 'Encabezados demasiado grandes',
    means: say(
      'Los encabezados de la solicitud superan 16 KB; se responde y se cierra la conexión.',
      'The request headers exceed 16 KB; the answer is sent and the connection closed.',
    ),
    fields: [],
    fix: say(
      'Envíe menos encabezados o más cortos (cookies acumuladas, tokens repetidos).',
      'Send fewer or shorter headers (piled-up cookies, repeated tokens).',
    ),
    detail: 'The request headers exceed 16 KB',
  },
  internal_error: {
    titleEs: 'Error interno',
    means: say(
      'Algo falló dentro del servicio. El detalle queda en los registros, nunca en la respuesta.',
      'Something failed inside the service. The details are in the logs, never in the answer.',
    ),
    fields: ['request_id'],
    fix: say(
      'Reintente más tarde; si persiste, reporte el request_id (también en el encabezado Request-Id).',
      'Retry later; if it persists, report the request_id (also in the Request-Id header).',
    ),
    detail: 'An unexpected error occurred; it has been logged',
  },
  service_unavailable: {
    titleEs: 'Servicio no disponible por ahora',
    means: say(
      'Un servicio del que depende (PostgreSQL o Redis) no responde; en /ready, la instancia aún no puede atender.',
      'A service it depends on (PostgreSQL or Redis) does not answer; at /ready, the instance cannot serve yet.',
    ),
    fields: ['Retry-After', 'checks'],
    fix: say(
      'Reintente después de Retry-After (5 s); con Idempotency-Key repetir una escritura es seguro.',
      'Retry after Retry-After (5 s); with an Idempotency-Key, repeating a write is safe.',
    ),
    detail: 'A backing service is unavailable; retry shortly',
  },
};
