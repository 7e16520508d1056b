package people_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/audit"
	"github.com/statementmatch/service/internal/people"
)

// withAuthenticator sets up an authenticator for u and returns its secret; the code that
// confirmed it is spent.
func (b bundle) withAuthenticator(t *testing.T, u people.User) string {
	t.Helper()
	ctx := t.Context()
	e, err := b.svc.BeginSecondFactor(ctx, u)
	require.NoError(t, err)
	code, err := totp.GenerateCode(e.Secret, b.clock.Now())
	require.NoError(t, err)
	require.NoError(t, b.svc.EnableSecondFactor(ctx, u, goodPassword, code, "192.0.2.1"))
	return e.Secret
}

func (b bundle) code(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	code, err := totp.GenerateCode(secret, at)
	require.NoError(t, err)
	return code
}

// TestSecondFactorSetUp: an authenticator is on only once its code and the password are right;
// its secret is kept sealed; the pending one can be shown again, and a user with one cannot
// start another.
func TestSecondFactorSetUp(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	u := b.user(t, "hana@example.com", people.Developer)

	require.ErrorIs(t, b.svc.EnableSecondFactor(ctx, u, goodPassword, "123456", "192.0.2.1"), people.ErrNotFound,
		"nothing is being set up")
	e, err := b.svc.BeginSecondFactor(ctx, u)
	require.NoError(t, err)
	require.Len(t, e.Secret, 32, "160 bits in base32")
	require.Contains(t, e.URL, "otpauth://totp/Statement%20Matching:hana@example.com?")
	again, err := b.svc.PendingSecondFactor(ctx, u)
	require.NoError(t, err)
	require.Equal(t, e, again, "the pending authenticator is shown again after a wrong code")

	now := b.clock.Now()
	right := b.code(t, e.Secret, now)
	for _, tc := range []struct {
		name, password, code string
		want                 error
	}{
		{"wrong password", "not the password", right, people.ErrInvalidCredentials},
		{"letters", goodPassword, "abcdef", people.ErrInvalidCode},
		{"too short", goodPassword, right[:5], people.ErrInvalidCode},
		{"two steps late", goodPassword, b.code(t, e.Secret, now.Add(-61*time.Second)), people.ErrInvalidCode},
		{"two steps early", goodPassword, b.code(t, e.Secret, now.Add(61*time.Second)), people.ErrInvalidCode},
	} {
		require.ErrorIs(t, b.svc.EnableSecondFactor(ctx, u, tc.password, tc.code, "192.0.2.1"), tc.want, tc.name)
	}
	got, err := b.svc.User(ctx, u.ID)
	require.NoError(t, err)
	require.Nil(t, got.SecondFactorSince, "not on until a right code")

	require.NoError(t, b.svc.EnableSecondFactor(ctx, u, goodPassword, right[:3]+" "+right[3:], "192.0.2.1"),
		"a code typed in two groups")
	got, err = b.svc.User(ctx, u.ID)
	require.NoError(t, err)
	require.NotNil(t, got.SecondFactorSince)
	_, err = b.svc.BeginSecondFactor(ctx, got)
	require.ErrorIs(t, err, people.ErrConflict)

	var sealed []byte
	require.NoError(t, b.db.GetContext(ctx, &sealed, `SELECT totp_secret FROM users WHERE id = $1`, u.ID))
	require.NotEmpty(t, sealed)
	require.False(t, bytes.Contains(sealed, []byte(e.Secret)), "the secret is sealed, not in clear")
}

// TestSecondFactorSignIn: with an authenticator, the right password starts no session but a
// challenge; a right code of now, or of the step before or after, starts one; no code works
// twice; five wrong codes or five minutes end the challenge.
func TestSecondFactorSignIn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	u := b.user(t, "ines@example.com", people.Owner)
	secret := b.withAuthenticator(t, u)

	res, err := b.svc.SignIn(ctx, "ines@example.com", goodPassword, "192.0.2.1")
	require.NoError(t, err)
	require.NotEmpty(t, res.Challenge)
	require.Empty(t, res.Token, "no session before the code")
	_, err = b.svc.SignIn(ctx, "ines@example.com", "wrong password", "192.0.2.1")
	require.ErrorIs(t, err, people.ErrInvalidCredentials, "the password still comes first")

	used := b.code(t, secret, b.clock.Now())
	_, err = b.svc.SignInCode(ctx, res.Challenge, used, "192.0.2.1")
	require.ErrorIs(t, err, people.ErrInvalidCode, "the code that set it up is spent")
	_, err = b.svc.SignInCode(ctx, "no such challenge", used, "192.0.2.1")
	require.ErrorIs(t, err, people.ErrChallengeEnded)

	b.clock.Advance(30 * time.Second)
	late := b.code(t, secret, b.clock.Now().Add(-30*time.Second))
	require.Equal(t, used, late, "the step before: the spent one")
	next := b.code(t, secret, b.clock.Now())
	in, err := b.svc.SignInCode(ctx, res.Challenge, next, "192.0.2.1")
	require.NoError(t, err)
	require.NotEmpty(t, in.Token)
	_, who, err := b.svc.Authenticate(ctx, in.Token)
	require.NoError(t, err)
	require.Equal(t, u.ID, who.ID)
	_, err = b.svc.SignInCode(ctx, res.Challenge, next, "192.0.2.1")
	require.ErrorIs(t, err, people.ErrChallengeEnded, "a challenge is used once")

	res, err = b.svc.SignIn(ctx, "ines@example.com", goodPassword, "192.0.2.1")
	require.NoError(t, err)
	_, err = b.svc.SignInCode(ctx, res.Challenge, next, "192.0.2.1")
	require.ErrorIs(t, err, people.ErrInvalidCode, "a code is used once, whichever sign-in")
	early := b.code(t, secret, b.clock.Now().Add(30*time.Second))
	_, err = b.svc.SignInCode(ctx, res.Challenge, early, "192.0.2.1")
	require.NoError(t, err, "a clock a step behind the app's")

	res, err = b.svc.SignIn(ctx, "ines@example.com", goodPassword, "192.0.2.1")
	require.NoError(t, err)
	for range people.ChallengeAttempts {
		_, err = b.svc.SignInCode(ctx, res.Challenge, "000000", "198.51.100.7")
		require.ErrorIs(t, err, people.ErrInvalidCode)
	}
	b.clock.Advance(30 * time.Second)
	_, err = b.svc.SignInCode(ctx, res.Challenge, b.code(t, secret, b.clock.Now()), "192.0.2.1")
	require.ErrorIs(t, err, people.ErrChallengeEnded, "five wrong codes end it, even before a right one")

	res, err = b.svc.SignIn(ctx, "ines@example.com", goodPassword, "192.0.2.1")
	require.NoError(t, err)
	b.clock.Advance(people.ChallengeTTL)
	_, err = b.svc.SignInCode(ctx, res.Challenge, b.code(t, secret, b.clock.Now()), "192.0.2.1")
	require.ErrorIs(t, err, people.ErrChallengeEnded, "five minutes end it")

	events, err := b.audit.Events(ctx, b.account, 0, 100)
	require.NoError(t, err)
	counts := map[string]int{}
	for _, e := range events {
		counts[e.Action]++
	}
	require.Equal(t, 1, counts[audit.SecondFactorOn])
	require.Equal(t, 2, counts[audit.SignedIn], "a session is a sign-in; a challenge is not")
	require.GreaterOrEqual(t, counts[audit.SignInFailed], people.ChallengeAttempts+1)
}

// TestSecondFactorCodesAreThrottled: wrong codes count against the sign-in throttles of the
// address, so fresh challenges do not give fresh guesses.
func TestSecondFactorCodesAreThrottled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	u := b.user(t, "jon@example.com", people.Viewer)
	secret := b.withAuthenticator(t, u)
	b.clock.Advance(30 * time.Second)
	for i := 0; i < people.FailedSignInBudget; {
		res, err := b.svc.SignIn(ctx, "jon@example.com", goodPassword, "203.0.113.9")
		require.NoError(t, err)
		for range 2 {
			if i == people.FailedSignInBudget {
				break
			}
			_, err = b.svc.SignInCode(ctx, res.Challenge, "999999", "203.0.113.9")
			require.ErrorIs(t, err, people.ErrInvalidCode)
			i++
		}
	}
	res, err := b.svc.SignIn(ctx, "jon@example.com", goodPassword, "203.0.113.9")
	require.ErrorIs(t, err, people.ErrThrottled, "the budget is spent for the password too")
	_, err = b.svc.SignInCode(ctx, res.Challenge, b.code(t, secret, b.clock.Now()), "203.0.113.9")
	require.ErrorIs(t, err, people.ErrChallengeEnded)
}

// TestSecondFactorRemoval: a user removes their own authenticator with their password; an owner
// removes another user's, not their own and not another account's; the operator resets any;
// challenges waiting for a code end with it.
func TestSecondFactorRemoval(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	owner := b.user(t, "kai@example.com", people.Owner)
	dev := b.user(t, "lea@example.com", people.Developer)
	b.withAuthenticator(t, owner)
	b.clock.Advance(30 * time.Second)
	b.withAuthenticator(t, dev)

	waiting, err := b.svc.SignIn(ctx, "lea@example.com", goodPassword, "192.0.2.1")
	require.NoError(t, err)
	_, err = b.svc.RemoveSecondFactor(ctx, owner, "192.0.2.1", owner.ID)
	require.ErrorIs(t, err, people.ErrSelf)
	stranger := owner
	stranger.AccountID = uuid.New()
	_, err = b.svc.RemoveSecondFactor(ctx, stranger, "192.0.2.1", dev.ID)
	require.ErrorIs(t, err, people.ErrNotFound, "not through another account")
	got, err := b.svc.RemoveSecondFactor(ctx, owner, "192.0.2.1", dev.ID)
	require.NoError(t, err)
	require.Nil(t, got.SecondFactorSince)
	_, err = b.svc.RemoveSecondFactor(ctx, owner, "192.0.2.1", dev.ID)
	require.ErrorIs(t, err, people.ErrNotFound, "nothing left to remove")
	_, err = b.svc.SignInCode(ctx, waiting.Challenge, "123456", "192.0.2.1")
	require.ErrorIs(t, err, people.ErrChallengeEnded)
	res, err := b.svc.SignIn(ctx, "lea@example.com", goodPassword, "192.0.2.1")
	require.NoError(t, err)
	require.NotEmpty(t, res.Token, "the password alone again")

	require.ErrorIs(t, b.svc.DisableSecondFactor(ctx, owner, "not the password", "192.0.2.1"), people.ErrInvalidCredentials)
	require.NoError(t, b.svc.DisableSecondFactor(ctx, owner, goodPassword, "192.0.2.1"))

	b.clock.Advance(30 * time.Second)
	b.withAuthenticator(t, owner)
	_, err = b.svc.ResetSecondFactor(ctx, uuid.New(), "kai@example.com")
	require.ErrorIs(t, err, people.ErrNotFound, "the operator names the account too")
	got, err = b.svc.ResetSecondFactor(ctx, b.account, "KAI@example.com")
	require.NoError(t, err)
	require.Equal(t, owner.ID, got.ID)

	events, err := b.audit.Events(ctx, b.account, 0, 100)
	require.NoError(t, err)
	var removedBy []string
	for _, e := range events {
		if e.Action == audit.SecondFactorOff {
			removedBy = append(removedBy, e.Actor.Name+" "+e.Target)
		}
	}
	require.Equal(t, []string{"statementd admin kai@example.com", "kai@example.com kai@example.com", "kai@example.com lea@example.com"}, removedBy)
}

// TestRemoveUser: an owner removes another user of the account for good: their sessions and
// links end, they cannot sign in, the audit log keeps their email; never oneself, never another
// account's user.
func TestRemoveUser(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	owner := b.user(t, "mia@example.com", people.Owner)
	dev := b.user(t, "noor@example.com", people.Developer)
	_, session, _, err := b.signIn(ctx, "noor@example.com", goodPassword, "192.0.2.2")
	require.NoError(t, err)
	_, link, err := b.svc.NewLink(ctx, owner.Actor("192.0.2.1"), b.account, dev.ID)
	require.NoError(t, err)

	_, err = b.svc.Remove(ctx, owner, "192.0.2.1", owner.ID)
	require.ErrorIs(t, err, people.ErrSelf)
	stranger := owner
	stranger.AccountID = uuid.New()
	_, err = b.svc.Remove(ctx, stranger, "192.0.2.1", dev.ID)
	require.ErrorIs(t, err, people.ErrNotFound)
	got, err := b.svc.Remove(ctx, owner, "192.0.2.1", dev.ID)
	require.NoError(t, err)
	require.Equal(t, "noor@example.com", got.Email)

	_, _, err = b.svc.Authenticate(ctx, session)
	require.ErrorIs(t, err, people.ErrSessionEnded)
	_, err = b.svc.SetPassword(ctx, link, "a brand new passphrase", "192.0.2.2")
	require.ErrorIs(t, err, people.ErrLinkInvalid)
	_, _, _, err = b.signIn(ctx, "noor@example.com", goodPassword, "192.0.2.2")
	require.ErrorIs(t, err, people.ErrInvalidCredentials)
	_, _, err = b.svc.Invite(ctx, owner.Actor("192.0.2.1"), b.account, "noor@example.com", people.Viewer)
	require.NoError(t, err, "the address is free again")

	events, err := b.audit.Events(ctx, b.account, 0, 100)
	require.NoError(t, err)
	var found bool
	for _, e := range events {
		if e.Action == audit.UserRemoved {
			found = true
			require.Equal(t, "noor@example.com (developer)", e.Target)
			require.Equal(t, "mia@example.com", e.Actor.Name)
		}
		if e.Action == audit.SignedIn && e.Target == "" && e.Actor.Name == "noor@example.com" {
			require.Equal(t, uuid.Nil, e.Actor.UserID, "the removed user's events stay, without their id")
		}
	}
	require.True(t, found)
}
