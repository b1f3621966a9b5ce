// The answer to a sign-in link: keep the session's nonce where the page's script finds it (this origin's
// storage: no page of another port can read it), then go to the page, replacing the address and the
// history entry that hold the link's token.
const nonce = document.querySelector('meta[name="editgate-nonce"]')?.getAttribute('content');
if (nonce) localStorage.setItem('editgate-review-nonce', nonce);
location.replace('/');
