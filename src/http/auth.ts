/** What the HTTP channels (REST, SOAP, the feed) need of the authenticator: a customer from an API key. */
import type { Principal } from '../domain/types.ts';

export interface ApiKeyAuth {
  apiKey(token: string | undefined): Promise<Principal | undefined>;
}
