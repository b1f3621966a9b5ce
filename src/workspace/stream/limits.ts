/**
 * Which files take the streaming path, as numbers. Apart from the rest of stream/ (and re-exported by its
 * face) so that a command can check its options at start-up without loading the streaming machinery.
 */

/** Files of at least this many bytes are streamed by default. */
export const DEFAULT_STREAM_THRESHOLD = 32 << 20;
/** Above this the normal path would come too close to V8's string limit (~512 MiB) with a UTF-8 file. */
export const MAX_STREAM_THRESHOLD = 256 << 20;
