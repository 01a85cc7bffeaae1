/** The console: sign-in, then the navigation and the open page. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ErrorNotice, Link, PageTitle } from './components.js';
import { Masthead } from './masthead.js';
import { permissionsOf } from './permissions.js';
import { ApiReferencePage } from './pages/api-reference.js';
import { AuditPage } from './pages/audit.js';
import { AutomationEditPage } from './pages/automation-edit.js';
import { AutomationsPage } from './pages/automations.js';
import { ConversationPage } from './pages/conversation.js';
import { ConversationsPage } from './pages/conversations.js';
import { DeliveriesPage } from './pages/deliveries.js';
import { DeliveryPage } from './pages/delivery.js';
import { MembersPage } from './pages/members.js';
import { OverviewPage } from './pages/overview.js';
import { RunPage } from './pages/run.js';
import { RunsPage } from './pages/runs.js';
import { SandboxesPage } from './pages/sandboxes.js';
import { SettingsPage } from './pages/settings.js';
import { SubscriptionPage } from './pages/subscription.js';
import { SubscriptionsPage } from './pages/subscriptions.js';
import { UsagePage } from './pages/usage.js';
import { WebhooksPage } from './pages/webhooks.js';
import { PreferencesContext, useLoadedPreferences } from './preferences.js';
import { useRoute, type Route } from './router.js';
import {
  clientFor,
  cookieSignIn,
  cookieSignOut,
  oidcLoginUrl,
  SessionContext,
  signIn,
  storedSession,
  storeSession,
  type CookieSignIn,
  type Session,
  type SignedIn,
} from './session.js';

const NAV = [
  ['overview', 'Overview'],
  ['deliveries', 'Deliveries'],
  ['automations', 'Automations'],
  ['runs', 'Runs'],
  ['conversations', 'Conversations'],
  ['webhooks', 'Webhooks'],
  ['subscriptions', 'Subscriptions'],
  ['sandboxes', 'Sandboxes'],
  ['usage', 'Usage'],
  ['members', 'Members'],
  ['settings', 'Settings'],
  ['audit', 'Audit log'],
  ['api', 'API reference'],
] as const;

/** Pages only some roles can read: left out of the navigation for the others. */
const NAV_NEEDS_ADMIN: ReadonlySet<string> = new Set(['members', 'audit']);

export function App() {
  const [session, setSession] = useState<Session | null>(storedSession);
  // OpenID Connect sign-in, when the host turned it on: `undefined` until the platform answered.
  const [offer, setOffer] = useState<CookieSignIn | null | undefined>(undefined);
  useEffect(() => {
    if (session) return;
    let cancelled = false;
    cookieSignIn().then((found) => {
      if (cancelled) return;
      setOffer(found);
      if (found?.session) setSession(found.session);
    });
    return () => {
      cancelled = true;
    };
  }, [session]);
  const signedIn = useMemo<SignedIn | null>(
    () =>
      session && {
        ...session,
        client: clientFor(session),
        signOut: () => {
          if (session.apiKey === null && session.csrfToken) void cookieSignOut(session.csrfToken).finally(() => setSession(null));
          else {
            storeSession(null);
            setSession(null);
          }
        },
      },
    [session],
  );
  if (!signedIn) {
    return (
      <SignInPage
        provider={offer?.provider ?? null}
        onSignedIn={(next) => {
          storeSession(next);
          setSession(next);
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={signedIn}>
      <Shell session={signedIn} />
    </SessionContext.Provider>
  );
}

function Shell({ session }: { session: SignedIn }) {
  const route = useRoute();
  const section = route.segments[0] ?? 'overview';
  const { admin } = permissionsOf(session);
  // The user's language and sound setting, read before the first page is drawn (its dates and numbers follow the language).
  const preferences = useLoadedPreferences(session.client);
  return (
    <PreferencesContext.Provider value={preferences}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="container">
        <Masthead session={session} />
        <nav aria-label="Console">
          <ul>
            {NAV.filter(([path]) => admin || !NAV_NEEDS_ADMIN.has(path)).map(([path, label]) => (
              <li key={path}>
                <Link to={path} aria-current={section === path ? 'page' : undefined}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" class="container">
        {preferences.loaded ? (
          <Page key={`${route.segments.join('/')}?${route.query.toString()}`} route={route} />
        ) : (
          <p aria-busy="true">Loading your settings…</p>
        )}
      </main>
    </PreferencesContext.Provider>
  );
}

function Page({ route }: { route: Route }) {
  const [section, id, sub] = route.segments;
  switch (section) {
    case undefined:
    case 'index.html':
    case 'overview':
      return <OverviewPage period={route.query.get('period')} />;
    case 'deliveries':
      return id ? <DeliveryPage id={id} /> : <DeliveriesPage />;
    case 'automations':
      if (id && sub === 'runs') return <RunsPage automation={id} status={null} age={null} />;
      return id ? <AutomationEditPage id={id === 'new' ? null : id} /> : <AutomationsPage />;
    case 'runs':
      return id ? <RunPage id={id} /> : <RunsPage automation={route.query.get('automation')} status={route.query.get('status')} age={route.query.get('age')} />;
    case 'conversations':
      return id ? <ConversationPage id={id} /> : <ConversationsPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'subscriptions':
      return id ? <SubscriptionPage id={id} /> : <SubscriptionsPage />;
    case 'sandboxes':
      return <SandboxesPage />;
    case 'usage':
      return <UsagePage />;
    case 'members':
      return <MembersPage />;
    case 'settings':
      return <SettingsPage />;
    case 'audit':
      return <AuditPage />;
    case 'api':
      return <ApiReferencePage />;
    default:
      return (
        <>
          <PageTitle>Page not found</PageTitle>
          <p>
            The console has no page here. <Link to="overview">Go to the overview</Link>.
          </p>
        </>
      );
  }
}

function SignInPage({ onSignedIn, provider }: { onSignedIn: (session: Session) => void; provider: string | null }) {
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="container sign-in">
      <PageTitle>Sign in to the agent-platform console</PageTitle>
      {provider && (
        // A plain link, not a form: the sign-in is a chain of top-level redirects through the
        // provider, which the page's `form-action 'self'` would stop after a form's submit.
        <p class="oidc-sign-in">
          <a href={oidcLoginUrl}>
            <strong>Sign in with {provider}</strong>
          </a>{' '}
          — or with an API key below.
        </p>
      )}
      <p>
        Sign in with an API key of the platform. The key stays in this browser tab's session storage: it is sent with each request to the API and forgotten when
        the tab closes.
      </p>
      <p>
        <small>
          Where a key comes from: the reference server prints one at its first start (when no key is configured), and seeds those in{' '}
          <code>AGENT_PLATFORM_API_KEYS</code> (<code>user@org:key</code>, comma-separated) at every start. Signed in, <code>POST /api/keys</code> creates more.
          A host that embeds the platform issues keys with <code>platform.apiKeys</code>.
        </small>
      </p>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const form = event.currentTarget as HTMLFormElement;
          const apiKey = (form.elements.namedItem('api-key') as HTMLInputElement).value.trim();
          setBusy(true);
          setError(undefined);
          try {
            onSignedIn(await signIn(apiKey));
          } catch (caught) {
            setError(caught);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label>
          API key
          <input name="api-key" type="password" autocomplete="off" required />
        </label>
        <button type="submit" aria-busy={busy ? 'true' : undefined}>
          Sign in
        </button>
      </form>
      <ErrorNotice error={error} context="Sign-in failed" />
    </main>
  );
}
