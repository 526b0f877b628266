import { SCOPES } from '#domain/scopes';
import { createToken, listTokens } from '#domain/tokens';

/** The workspace `npm start` makes its first token for: the one the README's walkthrough uses. */
const WORKSPACE = 'acme-corp';

/**
 * `npm start`'s first token: on a database with no token for the walkthrough's workspace, one of every
 * scope and no expiry (said so), and the lines to paste; on a later start, how to make another.
 */
export async function greetWithFirstToken(base: string): Promise<void> {
  if ((await listTokens(WORKSPACE)).length > 0) {
    console.log(
      `Tokens for ${WORKSPACE} exist already; create another with: npm run token -- create --workspace ${WORKSPACE} --name "Your Name" --username you --all-scopes --expires-in 30d`,
    );
    return;
  }
  const { token } = await createToken({
    workspaces: [WORKSPACE],
    owner: { name: 'Local Developer', username: 'local-dev' },
    scopes: [...SCOPES],
  });
  console.log(`\nFirst start: created a token for workspace ${WORKSPACE}, every scope, no expiry (shown once, keep it):\n\n  ${token}\n`);
  // The README's walkthrough starts from this line, pasted as it is.
  console.log(`For the README's walkthrough, paste:\n\n  export API=${base} TOKEN=${token}\n`);
  console.log(`Try it:\n\n  curl -s -H "Authorization: Bearer $TOKEN" "$API/projects?company_slug=${WORKSPACE}"\n`);
}
