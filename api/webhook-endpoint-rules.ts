// What a webhook endpoint may be given, checked by the routes that create and update one: a URL
// it may use (live mode: public addresses only; sandbox: local ones too unless
// WEBHOOK_SANDBOX_ALLOW_PRIVATE is off) and a subscription list where `"*"` stands alone.
import type { Config } from '../config/index.ts';
import { misplacedWildcard } from '../domain/webhook-events.ts';
import { checkWebhookUrlTarget } from '../jobs/webhooks/address.ts';
import { validationError } from './errors.ts';

/** Refuses a URL the endpoint may not use, naming the `url` field. */
export async function assertWebhookUrl(url: string, livemode: boolean, config: Config): Promise<void> {
  const check = await checkWebhookUrlTarget(url, livemode, config.webhooks.sandboxAllowPrivate);
  if (!check.ok) throw validationError([{ path: '/url', code: check.code, message: check.message }]);
}

/** `"*"` (every event) stands alone in a subscription list. */
export function assertSubscription(events: readonly string[] | undefined): void {
  const at = events ? misplacedWildcard(events) : -1;
  if (at >= 0)
    throw validationError([
      {
        path: `/events/${at}`,
        code: 'invalid_value',
        message: '"*" subscribes to every event and must be the only item',
      },
    ]);
}
