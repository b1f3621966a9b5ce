// The user's state folder is decided in tools/ (a config's trust record lives there too); the CLI names it
// from here, as it always has.
export { defaultStateDir } from '../tools/state-dir.js';
