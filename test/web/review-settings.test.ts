import { describe, expect, it } from 'vitest';
import { parseUserConfig } from '../../src/agent/providers/user-config.js';
import { parseReviewSettings, ReviewSettingsError } from '../../src/web/review-settings.js';

const PATH = '/home/me/.config/editgate/config.json';

describe('the "review" settings of the user config', () => {
  it('are kept by the user config and read here', () => {
    const config = parseUserConfig(
      {
        review: {
          listen: '192.168.1.20:8443',
          linkMinutes: 5,
          answerTimeoutMinutes: 30,
          notify: { url: 'https://ntfy.example/my-secret-topic', format: 'text' },
        },
      },
      PATH,
    );
    expect(parseReviewSettings(config.review, PATH)).toEqual({
      listen: { host: '192.168.1.20', port: 8443, authorityName: '192.168.1.20' },
      linkMinutes: 5,
      answerTimeoutMinutes: 30,
      notify: { url: 'https://ntfy.example/my-secret-topic', format: 'text' },
    });
    expect(parseReviewSettings(undefined, PATH)).toEqual({});
    expect(parseReviewSettings({ startForHooks: false }, PATH)).toEqual({ startForHooks: false });
  });

  it.each([
    [{ listen: '0.0.0.0' }, 'review.listen: "0.0.0.0": that is every interface'],
    [{ notify: { command: [] } }, 'review.notify'],
    [{ notify: { command: 'notify-send hi' } }, 'review.notify'],
    [{ notify: { url: 'ftp://x' } }, 'review.notify'],
    [{ linkMinutes: -1 }, 'review.linkMinutes'],
    [{ answerTimeoutMinutes: 'soon' }, 'review.answerTimeoutMinutes'],
    [{ startForHooks: 'no' }, 'review.startForHooks'],
    [{ port: 80 }, 'review'],
  ])('refuse %j, naming the file and the key', (raw, where) => {
    expect(() => parseReviewSettings(raw, PATH)).toThrow(ReviewSettingsError);
    expect(() => parseReviewSettings(raw, PATH)).toThrow(`${PATH}: ${where}`);
  });
});
