/**
 * The person's settings for `editgate review`, under "review" in their own config file
 * (~/.config/editgate/config.json; never the project's editgate.config.json: a repository must not make
 * the page listen on a network, nor send links to its changes somewhere). Command-line options win.
 *
 *   "review": {
 *     "listen": "192.168.1.20:8443",          the address to serve HTTPS on (as --listen)
 *     "tlsCert": "/path/cert.pem",             the person's certificate and key (as --tls-cert/--tls-key)
 *     "tlsKey": "/path/key.pem",
 *     "linkMinutes": 15,                       how long a change's link works
 *     "answerTimeoutMinutes": 30,              a change not answered in this time is refused
 *     "notify": { "command": ["notify-send", "editgate", "{text}"] }
 *            or { "url": "https://ntfy.example/topic", "format": "text" | "json", "includeDiff": false },
 *     "startForHooks": true                    an agent's hook (--approve web) starts this page when none
 *                                              runs for its root, and opens it (false: it refuses at once)
 *   }
 */
import { z } from 'zod';
import { type ListenAddress, ListenAddressError, parseListenAddress } from '../core/listen-host.js';

/** Placeholders a notify command's arguments may be, each a whole argument (no shell ever reads them). */
export const NOTIFY_PLACEHOLDERS = ['{title}', '{text}', '{link}'] as const;

const minutes = z
  .number()
  .positive()
  .max(7 * 24 * 60);

const notifySchema = z.union([
  z.strictObject({
    command: z
      .array(z.string().min(1))
      .min(1, 'give the program and its arguments, e.g. ["notify-send", "editgate", "{text}"]'),
    includeDiff: z.boolean().optional(),
  }),
  z.strictObject({
    url: z
      .string()
      .regex(/^https?:\/\/[^\s]+$/, 'an http:// or https:// URL')
      .refine((url) => URL.canParse(url), 'a URL'),
    /** text: the message as the body (ntfy); json: an object a webhook reads. Default text. */
    format: z.enum(['text', 'json']).optional(),
    includeDiff: z.boolean().optional(),
  }),
]);

const settingsSchema = z.strictObject({
  listen: z.string().optional(),
  tlsCert: z.string().min(1).optional(),
  tlsKey: z.string().min(1).optional(),
  linkMinutes: minutes.optional(),
  answerTimeoutMinutes: minutes.optional(),
  notify: notifySchema.optional(),
  startForHooks: z.boolean().optional(),
});

export type NotifySettings = z.infer<typeof notifySchema>;

export interface ReviewSettings {
  listen?: ListenAddress;
  tlsCert?: string;
  tlsKey?: string;
  linkMinutes?: number;
  answerTimeoutMinutes?: number;
  notify?: NotifySettings;
  /** Whether an agent's hook in web mode starts this page when none runs (default true: cli/hook-review-page.ts). */
  startForHooks?: boolean;
}

export class ReviewSettingsError extends Error {}

/** The "review" value of the user's config file (`path`, for the messages), checked. */
export function parseReviewSettings(raw: unknown, path: string): ReviewSettings {
  if (raw === undefined) return {};
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = ['review', ...issue.path.map(String)].join('.');
    throw new ReviewSettingsError(`${path}: ${where}: ${issue.message}`);
  }
  const { listen, ...rest } = parsed.data;
  const settings: ReviewSettings = { ...rest };
  if (listen !== undefined) {
    try {
      settings.listen = parseListenAddress(listen);
    } catch (error) {
      if (error instanceof ListenAddressError)
        throw new ReviewSettingsError(`${path}: review.listen: ${error.message.replace(/^--listen /, '')}`);
      throw error;
    }
  }
  return settings;
}
