// editgate/web: the web review page for a program built on createEditTools. Its own entry point, as the
// adapters have theirs: the library's face ranks with the front ends and does not import them.
export {
  type AskOptions,
  type ReviewServer,
  type ReviewServerOptions,
  startReviewServer,
} from './review-server.js';
