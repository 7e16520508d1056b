package people_test

import (
	"context"
	"crypto/rand"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/audit"
	"github.com/statementmatch/service/internal/people"
	"github.com/statementmatch/service/internal/platform/secretbox"
	"github.com/statementmatch/service/internal/postgres"
	"github.com/statementmatch/service/internal/postgres/pgtest"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/internal/ratelimit/ratelimittest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type bundle struct {
	db      *sqlx.DB
	svc     *people.Service
	clock   *clock
	account uuid.UUID
	audit   *postgres.AuditStore
}

func setup(t *testing.T) bundle {
	t.Helper()
	db := pgtest.New(t)
	a, err := postgres.NewAccountStore(db).CreateAccount(t.Context(), account.Account{Name: "Acme"})
	require.NoError(t, err)
	c := &clock{now: time.Date(2026, 3, 5, 9, 0, 10, 0, time.UTC)}
	failures := &ratelimittest.Failures{}
	throttle := func(n int) *ratelimit.Throttle { return &ratelimit.Throttle{Store: failures, Now: c.Now, Budget: n} }
	key := make([]byte, secretbox.KeySize)
	_, _ = rand.Read(key)
	box, err := secretbox.New(key)
	require.NoError(t, err)
	svc := &people.Service{Store: postgres.NewPeopleStore(db), Sealer: box, Now: c.Now,
		Throttle: throttle(people.FailedSignInBudget), AddressThrottle: throttle(people.FailedSignInAddressBudget),
		Backstop: throttle(people.FailedSignInBackstop)}
	return bundle{db: db, svc: svc, clock: c, account: a.ID, audit: postgres.NewAuditStore(db)}
}

const goodPassword = "correct horse battery staple"

// signIn signs in with a password alone, as a user without a second factor does.
func (b bundle) signIn(ctx context.Context, email, password, address string) (people.Session, string, people.User, error) {
	r, err := b.svc.SignIn(ctx, email, password, address)
	return r.Session, r.Token, r.User, err
}

func (b bundle) user(t *testing.T, email string, role people.Role) people.User {
	t.Helper()
	u, link, err := b.svc.Invite(t.Context(), audit.Operator, b.account, email, role)
	require.NoError(t, err)
	_, err = b.svc.SetPassword(t.Context(), link, goodPassword, "192.0.2.1")
	require.NoError(t, err)
	return u
}

func TestInvitationSetsAPasswordOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	u, link, err := b.svc.Invite(ctx, audit.Operator, b.account, " Alice@Example.com ", people.Developer)
	require.NoError(t, err)
	require.Equal(t, "Alice@Example.com", u.Email)

	_, _, err = b.svc.Invite(ctx, audit.Operator, b.account, "alice@example.COM", people.Viewer)
	require.ErrorIs(t, err, people.ErrConflict, "one address is one user, whatever its case")
	for _, bad := range []string{"", "alice", "Alice <alice@example.com>", "a@b\x00c"} {
		_, _, err = b.svc.Invite(ctx, audit.Operator, b.account, bad, people.Viewer)
		require.ErrorIs(t, err, people.ErrInvalid, "%q", bad)
	}
	_, _, err = b.svc.Invite(ctx, audit.Operator, b.account, "bob@example.com", "admin")
	require.ErrorIs(t, err, people.ErrInvalid)
	_, _, err = b.svc.Invite(ctx, audit.Operator, uuid.New(), "carol@example.com", people.Viewer)
	require.ErrorIs(t, err, people.ErrNotFound, "an unknown account")

	_, _, _, err = b.signIn(ctx, "alice@example.com", "", "192.0.2.1")
	require.ErrorIs(t, err, people.ErrInvalidCredentials, "no password yet: no way in")

	invited, err := b.svc.InvitationUser(ctx, link)
	require.NoError(t, err)
	require.Equal(t, u.ID, invited.ID)
	_, err = b.svc.SetPassword(ctx, link, "short", "192.0.2.1")
	require.ErrorIs(t, err, people.ErrInvalid, "too short")
	_, err = b.svc.SetPassword(ctx, link, goodPassword, "192.0.2.1")
	require.NoError(t, err)
	_, err = b.svc.SetPassword(ctx, link, goodPassword+"!", "192.0.2.1")
	require.ErrorIs(t, err, people.ErrLinkInvalid, "a link works once")
	_, err = b.svc.InvitationUser(ctx, link)
	require.ErrorIs(t, err, people.ErrLinkInvalid)

	_, late, err := b.svc.Invite(ctx, audit.Operator, b.account, "dave@example.com", people.Viewer)
	require.NoError(t, err)
	b.clock.Advance(people.InvitationTTL)
	_, err = b.svc.SetPassword(ctx, late, goodPassword, "192.0.2.1")
	require.ErrorIs(t, err, people.ErrLinkInvalid, "a link expires after 72 hours")

	_, token, signedIn, err := b.signIn(ctx, "ALICE@example.com", goodPassword, "192.0.2.1")
	require.NoError(t, err)
	require.Equal(t, u.ID, signedIn.ID)
	require.Equal(t, people.Developer, signedIn.Role)
	require.NotEmpty(t, token)
}

func TestSessionsEnd(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	u := b.user(t, "erin@example.com", people.Owner)

	sess, token, _, err := b.signIn(ctx, "erin@example.com", goodPassword, "192.0.2.1")
	require.NoError(t, err)
	got, gotUser, err := b.svc.Authenticate(ctx, token)
	require.NoError(t, err)
	require.Equal(t, sess.CSRF, got.CSRF)
	require.Equal(t, u.ID, gotUser.ID)
	_, _, err = b.svc.Authenticate(ctx, token+"x")
	require.ErrorIs(t, err, people.ErrSessionEnded)

	// Active: kept alive past the idle limit by requests.
	for range 3 {
		b.clock.Advance(people.SessionIdle - time.Minute)
		_, _, err = b.svc.Authenticate(ctx, token)
		require.NoError(t, err, "a request within the idle limit keeps the session")
	}
	b.clock.Advance(people.SessionIdle)
	_, _, err = b.svc.Authenticate(ctx, token)
	require.ErrorIs(t, err, people.ErrSessionEnded, "idle too long")

	_, token, _, err = b.signIn(ctx, "erin@example.com", goodPassword, "192.0.2.1")
	require.NoError(t, err)
	for b.clock.Now().Before(sess.CreatedAt.Add(people.SessionTTL + 2*time.Hour)) {
		b.clock.Advance(20 * time.Minute)
		if _, _, err = b.svc.Authenticate(ctx, token); err != nil {
			break
		}
	}
	require.ErrorIs(t, err, people.ErrSessionEnded, "a session ends 12 hours after sign-in, however active")

	_, one, _, err := b.signIn(ctx, "erin@example.com", goodPassword, "192.0.2.1")
	require.NoError(t, err)
	_, two, _, err := b.signIn(ctx, "erin@example.com", goodPassword, "198.51.100.2")
	require.NoError(t, err)
	require.NoError(t, b.svc.SignOut(ctx, one, u.Actor("192.0.2.1")))
	_, _, err = b.svc.Authenticate(ctx, one)
	require.ErrorIs(t, err, people.ErrSessionEnded, "signed out")
	_, _, err = b.svc.Authenticate(ctx, two)
	require.NoError(t, err, "the other browser is still signed in")
	_, three, _, err := b.signIn(ctx, "erin@example.com", goodPassword, "192.0.2.1")
	require.NoError(t, err)
	require.NoError(t, b.svc.SignOutEverywhere(ctx, u, u.Actor("192.0.2.1")))
	for _, tok := range []string{two, three} {
		_, _, err = b.svc.Authenticate(ctx, tok)
		require.ErrorIs(t, err, people.ErrSessionEnded, "signed out everywhere")
	}

	events, err := b.audit.Events(ctx, b.account, 0, 50)
	require.NoError(t, err)
	var actions []string
	for _, e := range events {
		actions = append(actions, e.Action)
	}
	require.Equal(t, []string{audit.SignedOutAll, audit.SignedIn, audit.SignedOut, audit.SignedIn, audit.SignedIn, audit.SignedIn,
		audit.SignedIn, audit.PasswordSet, audit.UserInvited}, actions)
}

// TestSignInIsThrottledWithoutLockingTheUserOut: five wrong passwords for an email from one
// address refuse that email there, even with the right password, until the minute ends; the
// user, from another address, still signs in. An address that tries many emails is refused
// after thirty failures.
func TestSignInIsThrottledWithoutLockingTheUserOut(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	b.user(t, "frank@example.com", people.Viewer)
	const attacker, owner = "203.0.113.66", "198.51.100.7"
	for i := range people.FailedSignInBudget {
		_, _, _, err := b.signIn(ctx, "frank@example.com", "wrong password "+string(rune('a'+i)), attacker)
		require.ErrorIs(t, err, people.ErrInvalidCredentials, "attempt %d", i+1)
	}
	_, _, _, err := b.signIn(ctx, "frank@example.com", goodPassword, attacker)
	require.ErrorIs(t, err, people.ErrThrottled, "refused there, right password or not")
	_, _, _, err = b.signIn(ctx, "frank@example.com", goodPassword, owner)
	require.NoError(t, err, "the user elsewhere is not locked out")

	for i := range people.FailedSignInAddressBudget - people.FailedSignInBudget {
		_, _, _, err := b.signIn(ctx, "nobody"+string(rune('a'+i%26))+"@example.com", "whatever password", attacker)
		require.ErrorIs(t, err, people.ErrInvalidCredentials, "guess %d", i+1)
	}
	_, _, _, err = b.signIn(ctx, "someone@example.com", "whatever password", attacker)
	require.ErrorIs(t, err, people.ErrThrottled, "the address is refused whatever email it tries")

	b.clock.Advance(time.Minute)
	_, _, _, err = b.signIn(ctx, "frank@example.com", goodPassword, attacker)
	require.NoError(t, err, "a new minute, a new budget")

	events, err := b.audit.Events(ctx, b.account, 0, 100)
	require.NoError(t, err)
	failed := 0
	for _, e := range events {
		if e.Action == audit.SignInFailed {
			failed++
			require.Equal(t, attacker, e.Actor.Address)
		}
	}
	require.Equal(t, people.FailedSignInBudget, failed, "the known user's failed sign-ins are in the audit log")
}

// TestNewLinkResetsAPassword: an owner's new link for a user of the account sets a new password
// and ends the user's sessions; a user of another account is not found.
func TestNewLinkResetsAPassword(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	u := b.user(t, "gina@example.com", people.Developer)
	_, session, _, err := b.signIn(ctx, "gina@example.com", goodPassword, "192.0.2.1")
	require.NoError(t, err)

	_, _, err = b.svc.NewLink(ctx, audit.Operator, uuid.New(), u.ID)
	require.ErrorIs(t, err, people.ErrNotFound, "through another account")
	_, _, err = b.svc.NewLink(ctx, audit.Operator, b.account, uuid.New())
	require.ErrorIs(t, err, people.ErrNotFound)
	got, link, err := b.svc.NewLink(ctx, audit.Operator, b.account, u.ID)
	require.NoError(t, err)
	require.Equal(t, u.ID, got.ID)
	_, err = b.svc.SetPassword(ctx, link, "a brand new passphrase", "192.0.2.1")
	require.NoError(t, err)
	_, _, err = b.svc.Authenticate(ctx, session)
	require.ErrorIs(t, err, people.ErrSessionEnded, "a new password ends the sessions of the old one")
	_, _, _, err = b.signIn(ctx, "gina@example.com", goodPassword, "192.0.2.1")
	require.ErrorIs(t, err, people.ErrInvalidCredentials)
	_, _, _, err = b.signIn(ctx, "gina@example.com", "a brand new passphrase", "192.0.2.1")
	require.NoError(t, err)
}

// TestOwnersManageOthers: an owner changes another user's role and disables them (their sessions
// end, they cannot sign in) and enables them again, but never their own; another account's user
// is not found. A user changes their own password with the current one, keeping the session
// they are in and ending the others.
func TestOwnersManageOthers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	owner := b.user(t, "olga@example.com", people.Owner)
	dev := b.user(t, "dmitri@example.com", people.Developer)
	_, devSession, _, err := b.signIn(ctx, "dmitri@example.com", goodPassword, "192.0.2.2")
	require.NoError(t, err)

	got, err := b.svc.SetRole(ctx, owner, "192.0.2.1", dev.ID, people.Viewer)
	require.NoError(t, err)
	require.Equal(t, people.Viewer, got.Role)
	_, err = b.svc.SetRole(ctx, owner, "192.0.2.1", owner.ID, people.Viewer)
	require.ErrorIs(t, err, people.ErrSelf)
	_, err = b.svc.SetRole(ctx, owner, "192.0.2.1", dev.ID, "root")
	require.ErrorIs(t, err, people.ErrInvalid)
	stranger := owner
	stranger.AccountID = uuid.New()
	_, err = b.svc.SetRole(ctx, stranger, "192.0.2.1", dev.ID, people.Owner)
	require.ErrorIs(t, err, people.ErrNotFound, "not through another account")

	_, err = b.svc.SetDisabled(ctx, owner, "192.0.2.1", dev.ID, true)
	require.NoError(t, err)
	_, _, err = b.svc.Authenticate(ctx, devSession)
	require.ErrorIs(t, err, people.ErrSessionEnded, "a disabled user's sessions end")
	_, _, _, err = b.signIn(ctx, "dmitri@example.com", goodPassword, "192.0.2.2")
	require.ErrorIs(t, err, people.ErrInvalidCredentials, "and they cannot sign in")
	_, err = b.svc.SetDisabled(ctx, owner, "192.0.2.1", owner.ID, true)
	require.ErrorIs(t, err, people.ErrSelf)
	_, err = b.svc.SetDisabled(ctx, owner, "192.0.2.1", dev.ID, false)
	require.NoError(t, err)
	_, _, _, err = b.signIn(ctx, "dmitri@example.com", goodPassword, "192.0.2.2")
	require.NoError(t, err, "enabled again")

	here, hereToken, _, err := b.signIn(ctx, "olga@example.com", goodPassword, "192.0.2.1")
	require.NoError(t, err)
	_, elsewhere, _, err := b.signIn(ctx, "olga@example.com", goodPassword, "198.51.100.1")
	require.NoError(t, err)
	require.ErrorIs(t, b.svc.ChangePassword(ctx, owner, "not the password", "a new long passphrase", here, "192.0.2.1"),
		people.ErrInvalidCredentials)
	require.ErrorIs(t, b.svc.ChangePassword(ctx, owner, goodPassword, "short", here, "192.0.2.1"), people.ErrInvalid)
	require.NoError(t, b.svc.ChangePassword(ctx, owner, goodPassword, "a new long passphrase", here, "192.0.2.1"))
	_, _, err = b.svc.Authenticate(ctx, hereToken)
	require.NoError(t, err, "the session of the change stays")
	_, _, err = b.svc.Authenticate(ctx, elsewhere)
	require.ErrorIs(t, err, people.ErrSessionEnded, "the others end")
	_, _, _, err = b.signIn(ctx, "olga@example.com", "a new long passphrase", "192.0.2.1")
	require.NoError(t, err)

	events, err := b.audit.Events(ctx, b.account, 0, 100)
	require.NoError(t, err)
	var actions []string
	for _, e := range events {
		actions = append(actions, e.Action)
	}
	for _, want := range []string{audit.RoleChanged, audit.UserDisabled, audit.UserEnabled, audit.PasswordChanged} {
		require.Contains(t, actions, want)
	}
}
