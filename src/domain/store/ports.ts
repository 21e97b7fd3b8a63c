/**
 * Narrow views of the store port, one per consumer (the habit of pg-boss's and graphile-worker's small facades):
 * each consumer's functions take only the part they use, so a reader sees at a glance what a module can touch and
 * a test can hand it a small fake. The full Store satisfies every one of them; the composition root (src/main.ts)
 * and the CLI (src/cli/context.ts), which open the store, pass it whole: the CLI is the operator's tool for
 * everything the store holds, so its part would be nearly all of it, and each command hands the store on to the
 * same narrow functions the console uses (src/customers/, src/connectors/, …).
 */
import type { EventStore } from './events.ts';
import type { HandoffStore } from './handoff.ts';
import type { LifecycleStore } from './lifecycle.ts';
import type { MailStore } from './mail.ts';
import type { MailTrustStore } from './mail-trust.ts';
import type { Store } from './store.ts';
import type { WebStore } from './web.ts';

/** Who a multi-customer connector's ticket is for (src/intake/connectors/customers.ts): read by judging and status. */
export type ConnectorCustomerLookup = Pick<Store, 'connectorCustomerIds' | 'getCustomerByCode' | 'getCustomer'>;

/** The order-status lookups the channels answer (src/intake/status.ts, connector-status.ts): reads only. */
export type StatusStore = ConnectorCustomerLookup & Pick<Store,
  | 'getOrder' | 'getOrderByRef' | 'latestAttempt' | 'findSubmissionByReservedOrderId'
  | 'getCustomer' | 'connectorOrderOwners' | 'connectorLatestAttempt' | 'orderTicket' | 'orderVersions' | 'orderRequests'>;

/** Claims on received submissions (src/intake/claims.ts). */
export type ClaimStore = Pick<Store,
  'claimSubmission' | 'claimSubmissions' | 'renewClaims' | 'releaseClaims' | 'getSubmissionOutcomes' | 'reapInstances'>;

/** What judging a submission reads and writes (src/intake/judge.ts): the catalog, connectors, orders. */
export type JudgeStore = ConnectorCustomerLookup & LifecycleStore & Pick<Store,
  'knownArticles' | 'inactiveArticles' | 'knownUnits' | 'registerOrders' | 'registeredBySubmission' | 'recordAttempts' | 'saveOrderTickets' | 'getOrderByRef' | 'getConnector' | 'connectorLookup'
  | 'getOrder' | 'getOrderAnyCustomer' | 'customersByPeppolId' | 'articlesByGtin' | 'articleXrefs'
  | 'ublChangeSequence' | 'recordUblChangeSequence'>;

/** The intake core (src/intake/intake.ts): durable receipt, claims, judging, completion. */
export type IntakeStore = ClaimStore & JudgeStore & Pick<Store,
  'saveSubmission' | 'saveSingleOrder' | 'completeSubmission' | 'resetSubmission' | 'countRetry' | 'getSubmission'>;

/** The e-mail channel (src/channels/mail/): its own tables, the customers its mailboxes belong to, its leases. */
export type MailChannelStore = MailStore & MailTrustStore & Pick<Store,
  | 'getCustomer' | 'getCustomerByMailbox' | 'getSubmission' | 'getOrders' | 'articleDescriptions' | 'orderVersions'
  | 'listCustomers' | 'listSubmissions' | 'queueNotification' | 'getNotifySettings'
  | 'acquireLease' | 'renewLease' | 'releaseLease' | 'reapInstances'>;

/**
 * The FTP/SFTP channels (src/channels/files/): the customer's virtual tree of files and outcomes, streamed uploads'
 * pieces, and the recap of registered lines in outcome files. Logins go through the authenticator, receipt through
 * the intake core.
 */
export type FilesChannelStore = Pick<Store,
  | 'listSubmissions' | 'getSubmission' | 'getSubmissionOutcomes' | 'findSubmissionBySha'
  | 'stageUploadPieces' | 'discardStagedUpload' | 'sweepStagedUploads' | 'getOrders' | 'articleDescriptions' | 'orderVersions'>;

/** A connector's key checked (src/connectors/auth.ts): the key, and whether its customer is active. */
export type ConnectorAuthStore = Pick<Store, 'findConnectorByKey' | 'getCustomer'>;

/** A connector's JMF messages about an order it brought: find it among its customers', report its production state. */
export type ConnectorOrderStore = Pick<Store, 'connectorOrderOwners' | 'getOrder' | 'getOrderAnyCustomer' | 'setProductionState'>;

/** The connectors' routes (src/channels/connectors/): the key, the JMF messages about orders, the status lookups. */
export type ConnectorChannelStore = ConnectorAuthStore & ConnectorOrderStore & StatusStore;

/** REST's customer routes (src/channels/rest/routes.ts): status lookups, a customer's list of orders, integration keys. */
export type RestStore = StatusStore & Pick<Store, 'findIntegration' | 'getCustomerByCode' | 'listCustomerOrders' | 'getSubmission'>;

/** The integrations' routes (src/channels/rest/integration-routes.ts): their keys and production reports. */
export type IntegrationRoutesStore = Pick<EventStore, 'findIntegration' | 'getOrderAnyCustomer' | 'setProductionState'> & LifecycleStore & Pick<Store, 'getOrder' | 'getOrderByRef'>;

/** The hand-off (src/handoff/): the event stream, subscribers and deliveries, integrations, production reports. */
export type HandoffPort = HandoffStore & EventStore & Pick<Store,
  'acquireLease' | 'releaseLease' | 'getCustomerByCode' | 'listConnectors' | 'connectorLookup' | 'notificationTarget' | 'queueNotification'
  | 'getConnector' | 'getSubmission' | 'orderRequests'>;

/** The console's sessions (src/channels/web/sessions.ts). */
export type SessionStore = Pick<WebStore, 'createWebSession' | 'getWebSession' | 'extendWebSession' | 'deleteWebSession'>;

/** Finding a customer by code or by FTP/SFTP user (src/customers/find.ts). */
export type CustomerLookup = Pick<Store, 'getCustomerByCode' | 'findCredential' | 'getCustomer'>;

/** Customers' accounts and credentials (src/customers/: provision, password, deactivate). */
export type CustomerAdminStore = CustomerLookup & Pick<Store,
  'createCustomer' | 'addCredential' | 'revokeCredentials' | 'setCustomerDeactivated' | 'deleteWebSessionsOf'>;

/** Production sites and connectors (src/connectors/provision.ts, sites.ts). */
export type ConnectorAdminStore = CustomerLookup & Pick<Store,
  | 'createSite' | 'createConnector' | 'getConnector' | 'revokeConnector' | 'rotateConnectorKey'
  | 'setConnectorMapping' | 'setConnectorProductKey'>;

/** An article catalog import (src/catalog/import-articles.ts). */
export type CatalogImportStore = Pick<Store, 'upsertArticles' | 'upsertArticleGtins'>;

/** Taking articles out of the catalog (src/catalog/withdraw.ts): the CLI and the console's catalog page. */
export type CatalogWithdrawStore = Pick<Store, 'knownArticles' | 'deactivateArticles' | 'activateArticles' | 'removeArticles' | 'inactiveArticles' | 'listInactiveArticles'>;

/** A customer's e-mail notifications of production status (src/handoff/notify-settings.ts). */
export type NotifyStore = Pick<Store, 'getCustomerByCode' | 'getNotifySettings' | 'setNotifySettings' | 'getSubscriber' | 'addSubscriber'>;

/** The operators' audit log, written (src/operators/audit.ts). */
export type AuditStore = Pick<Store, 'addAudit'>;

/**
 * The web channel (src/channels/web/): the console's and the portal's pages read the lists and records they show,
 * and change customers, connectors and the catalog only through the functions above, as the CLI does.
 */
export type WebChannelStore = SessionStore & CustomerAdminStore & ConnectorAdminStore & CatalogImportStore & CatalogWithdrawStore & AuditStore & NotifyStore & LifecycleStore & Pick<Store,
  | 'webKey' | 'getOperator' | 'getOperatorByEmail' | 'listAudit'
  | 'searchSubmissions' | 'searchOrders' | 'orderExportLines' | 'searchArticles' | 'countArticles' | 'countRefused' | 'countPartial' | 'orderCounts' | 'customerActivity'
  | 'getSubmission' | 'getOrder' | 'getOrders' | 'getOrderByRef' | 'getOrderAnyCustomer' | 'articleDescriptions' | 'listCustomers' | 'listUnits' | 'listSites' | 'listConnectors'
  | 'listSubscribers' | 'listDeliveries' | 'listReplies' | 'getReply' | 'getMailMessage' | 'getImapAccount'
  | 'getCustomer' | 'getMailPolicy' | 'setMailPolicy' | 'listMailHolds' | 'getMailHold' | 'decideMailHold'
  | 'setPeppolIds' | 'listPeppolIds' | 'countArticleXrefs' | 'orderTicket' | 'orderRequests'>;

/** The health check (src/http/server.ts): which engine, and whether it answers. */
export type HealthStore = Pick<Store, 'kind' | 'ping'>;

/** Credentials checked on every request and login (src/auth/authenticator.ts). */
export type AuthStore = Pick<Store, 'findCredential' | 'getCustomer'>;
