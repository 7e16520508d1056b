package people

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/alexedwards/argon2id"
	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/audit"
	"github.com/statementmatch/service/internal/ratelimit"
)

// The lifetimes of the package's secrets.
const (
	// InvitationTTL is how long a set-password link works.
	InvitationTTL = 72 * time.Hour
	// SessionTTL is how long a session lasts after sign-in, however active.
	SessionTTL = 12 * time.Hour
	// SessionIdle ends a session that made no request for this long.
	SessionIdle = 30 * time.Minute
	// touchEvery is how often a session's last request is written down.
	touchEvery = time.Minute
)

// Password rules: long enough to resist guessing, short enough to hash quickly.
const (
	MinPasswordLength = 12
	MaxPasswordLength = 256
)

// Failed sign-ins allowed per calendar minute, as for the token endpoint: per email and
// address; per address, whatever emails it tries; and per email from everywhere, a backstop
// high enough that only a flood from many addresses reaches it, so that nobody who knows a
// user's email can lock them out from where they are.
const (
	FailedSignInBudget        = 5
	FailedSignInAddressBudget = 30
	FailedSignInBackstop      = 300
)

// passwordParams are argon2id's costs: OWASP's recommendation (19 MiB, two passes, one lane).
var passwordParams = &argon2id.Params{Memory: 19 * 1024, Iterations: 2, Parallelism: 1, SaltLength: 16, KeyLength: 32}

// dummyHash is compared against when the email is unknown, so that it costs what a wrong
// password costs.
var dummyHash = func() string {
	h, err := argon2id.CreateHash("not a password anyone has", passwordParams)
	if err != nil {
		panic(err)
	}
	return h
}()

// Service applies the rules.
type Service struct {
	Store Store
	Now   func() time.Time
	// Throttle counts failed sign-ins per email and address, AddressThrottle per address, and
	// Backstop per email from everywhere; nil ones count nothing.
	Throttle, AddressThrottle, Backstop *ratelimit.Throttle
	// Sealer keeps authenticators' secrets sealed; Issuer names the service in authenticator
	// apps (DefaultIssuer when empty).
	Sealer Sealer
	Issuer string
}

func (s *Service) now() time.Time { return s.Now().UTC().Truncate(time.Microsecond) }

// NormalizeEmail checks an email address and returns it trimmed; the comparison of addresses
// ignores case.
func NormalizeEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	if utf8.RuneCountInString(email) > 254 || strings.IndexFunc(email, unicode.IsControl) >= 0 {
		return "", fmt.Errorf("%w: the email address is not valid", ErrInvalid)
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || a.Name != "" {
		return "", fmt.Errorf("%w: the email address is not valid", ErrInvalid)
	}
	return email, nil
}

// Invite creates a user of the account with role, and returns the token of their one-time
// set-password link (valid InvitationTTL). by is recorded as the inviter.
func (s *Service) Invite(ctx context.Context, by audit.Actor, accountID uuid.UUID, email string, role Role) (User, string, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return User{}, "", err
	}
	if _, err := ParseRole(string(role)); err != nil {
		return User{}, "", err
	}
	now := s.now()
	u := User{ID: uuid.New(), AccountID: accountID, Email: email, Role: role, CreatedAt: now}
	token, hash := newToken()
	inv := Invitation{Hash: hash, UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(InvitationTTL)}
	if err := s.Store.CreateUser(ctx, u, inv, by); err != nil {
		return User{}, "", fmt.Errorf("invite %s: %w", email, err)
	}
	return u, token, nil
}

// NewLink issues another one-time set-password link (valid InvitationTTL) for the account's user
// userID, for a password forgotten or an invitation lost; an earlier link stays valid until it
// expires or is used. Another account's user is ErrNotFound. by is recorded as its issuer.
func (s *Service) NewLink(ctx context.Context, by audit.Actor, accountID, userID uuid.UUID) (User, string, error) {
	u, err := s.user(ctx, accountID, userID)
	if err != nil {
		return User{}, "", fmt.Errorf("new link: %w", err)
	}
	now := s.now()
	token, hash := newToken()
	if err := s.Store.NewInvitation(ctx, Invitation{Hash: hash, UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(InvitationTTL)}, u, by); err != nil {
		return User{}, "", fmt.Errorf("new link for %s: %w", u.Email, err)
	}
	return u, token, nil
}

// CheckPassword says what is wrong with a new password, or nil.
func CheckPassword(password string) error {
	n := utf8.RuneCountInString(password)
	switch {
	case !utf8.ValidString(password):
		return fmt.Errorf("%w: the password is not valid text", ErrInvalid)
	case n < MinPasswordLength:
		return fmt.Errorf("%w: the password needs at least %d characters", ErrInvalid, MinPasswordLength)
	case n > MaxPasswordLength:
		return fmt.Errorf("%w: the password may have at most %d characters", ErrInvalid, MaxPasswordLength)
	}
	return nil
}

// SetPassword sets the password of the user whose link token is given, if the link is unused
// and unexpired (ErrLinkInvalid otherwise), and ends the user's sessions.
func (s *Service) SetPassword(ctx context.Context, token, password, address string) (User, error) {
	if err := CheckPassword(password); err != nil {
		return User{}, err
	}
	hash, err := argon2id.CreateHash(password, passwordParams)
	if err != nil {
		return User{}, fmt.Errorf("hash password: %w", err)
	}
	u, err := s.Store.UseInvitation(ctx, hashToken(token), hash, s.now(), address)
	if err != nil {
		return User{}, fmt.Errorf("set password: %w", err)
	}
	return u, nil
}

// InvitationUser returns whom the link token can still set a password for, so that the page can
// name them (and say when it cannot) before they type one; ErrLinkInvalid when it cannot.
func (s *Service) InvitationUser(ctx context.Context, token string) (User, error) {
	return s.Store.InvitationUser(ctx, hashToken(token), s.now())
}

// SignIn checks an email and password from address. For a user without a second factor it
// starts a session (the result's Session and Token, for its cookie); for one with, it starts a
// challenge (the result's Challenge) that SignInCode finishes. Failures are
// ErrInvalidCredentials, told apart from nothing else, or ErrThrottled once a budget of failures
// is spent (then even the right password is refused until the minute ends, so that guessing
// stays slow).
func (s *Service) SignIn(ctx context.Context, email, password, address string) (SignInResult, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	att, err := s.count(ctx, email, address)
	if err != nil {
		return SignInResult{}, err
	}
	u, err := s.Store.UserByEmail(ctx, email)
	if err != nil && !errors.Is(err, ErrNotFound) {
		s.refund(ctx, att)
		return SignInResult{}, fmt.Errorf("sign in: %w", err)
	}
	stored := dummyHash
	if err == nil && u.PasswordHash != "" {
		stored = u.PasswordHash
	}
	match, cmpErr := argon2id.ComparePasswordAndHash(password, stored)
	if err != nil || cmpErr != nil || !match || u.PasswordHash == "" || u.DisabledAt != nil {
		if err == nil {
			_ = s.Store.RecordFailedSignIn(ctx, u, address, s.now())
		}
		return SignInResult{}, ErrInvalidCredentials
	}
	s.refund(ctx, att)
	now := s.now()
	if u.SecondFactorSince != nil {
		token, hash := newToken()
		c := Challenge{Hash: hash, UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(ChallengeTTL), Address: address}
		if err := s.Store.CreateChallenge(ctx, c); err != nil {
			return SignInResult{}, fmt.Errorf("sign in: %w", err)
		}
		return SignInResult{User: u, Challenge: token}, nil
	}
	sess, token := newSession(u, address, now)
	if err := s.Store.CreateSession(ctx, sess, u); err != nil {
		return SignInResult{}, fmt.Errorf("sign in: %w", err)
	}
	return SignInResult{Session: sess, Token: token, User: u}, nil
}

// newSession returns a new session of u from address, and its cookie's token.
func newSession(u User, address string, now time.Time) (Session, string) {
	token, hash := newToken()
	csrf, _ := newToken()
	return Session{Hash: hash, UserID: u.ID, CSRF: csrf, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(SessionTTL), Address: address}, token
}

// ConfirmPassword checks a signed-in user's password again before something sensitive (showing
// the signing secret), from address, under the same throttles as signing in: a stolen session
// cannot be used to guess the password quickly. A wrong password is ErrInvalidCredentials.
func (s *Service) ConfirmPassword(ctx context.Context, u User, password, address string) error {
	att, err := s.count(ctx, strings.ToLower(u.Email), address)
	if err != nil {
		return err
	}
	// The stored hash, not the caller's copy of the user, which may predate a password change.
	current, err := s.Store.User(ctx, u.ID)
	if err != nil {
		s.refund(ctx, att)
		return fmt.Errorf("confirm password: %w", err)
	}
	match, err := argon2id.ComparePasswordAndHash(password, current.PasswordHash)
	if err != nil || !match {
		_ = s.Store.RecordFailedSignIn(ctx, u, address, s.now())
		return ErrInvalidCredentials
	}
	s.refund(ctx, att)
	return nil
}

// ChangePassword sets a signed-in user's new password after checking the current one (under the
// sign-in throttles), and ends the user's other sessions; the session it is made in (its hash)
// stays.
func (s *Service) ChangePassword(ctx context.Context, u User, current, next string, session Session, address string) error {
	if err := CheckPassword(next); err != nil {
		return err
	}
	if err := s.ConfirmPassword(ctx, u, current, address); err != nil {
		return err
	}
	hash, err := argon2id.CreateHash(next, passwordParams)
	if err != nil {
		return fmt.Errorf("hash password: %w", err)
	}
	return s.Store.ChangePassword(ctx, u, hash, session.Hash, s.now(), address)
}

// SetRole changes the role of the account's user userID; an owner cannot change their own
// (ErrSelf).
func (s *Service) SetRole(ctx context.Context, by User, address string, userID uuid.UUID, role Role) (User, error) {
	if _, err := ParseRole(string(role)); err != nil {
		return User{}, err
	}
	if userID == by.ID {
		return User{}, ErrSelf
	}
	u, err := s.user(ctx, by.AccountID, userID)
	if err != nil {
		return User{}, err
	}
	return s.Store.UpdateUser(ctx, by.AccountID, userID, role, u.DisabledAt, audit.RoleChanged, by.Actor(address))
}

// SetDisabled disables the account's user userID (their sessions end, and they cannot sign in)
// or enables them again; an owner cannot disable themselves (ErrSelf).
func (s *Service) SetDisabled(ctx context.Context, by User, address string, userID uuid.UUID, disabled bool) (User, error) {
	if userID == by.ID {
		return User{}, ErrSelf
	}
	u, err := s.user(ctx, by.AccountID, userID)
	if err != nil {
		return User{}, err
	}
	var at *time.Time
	action := audit.UserEnabled
	if disabled {
		now := s.now()
		at, action = &now, audit.UserDisabled
	}
	return s.Store.UpdateUser(ctx, by.AccountID, userID, u.Role, at, action, by.Actor(address))
}

// Remove deletes the account's user userID for good: their sessions and links end with them,
// and the audit log keeps their email. An owner cannot remove themselves (ErrSelf).
func (s *Service) Remove(ctx context.Context, by User, address string, userID uuid.UUID) (User, error) {
	if userID == by.ID {
		return User{}, ErrSelf
	}
	return s.Store.DeleteUser(ctx, by.AccountID, userID, by.Actor(address))
}

// user returns the account's user id; another account's is ErrNotFound.
func (s *Service) user(ctx context.Context, accountID, id uuid.UUID) (User, error) {
	u, err := s.Store.User(ctx, id)
	if err == nil && u.AccountID != accountID {
		err = ErrNotFound
	}
	return u, err
}

// attempt is a sign-in counted against the budgets, to be given back if it succeeds.
type attempt struct {
	keys      [3]string
	throttles [3]*ratelimit.Throttle
	decisions [3]ratelimit.Decision
	counted   int
}

// count counts a sign-in against the address's budget, the email's at the address, and the
// email's everywhere, in that order; the first one spent refuses it (ErrThrottled), and what was
// counted before it is given back, since no password was checked.
func (s *Service) count(ctx context.Context, email, address string) (attempt, error) {
	sum := sha256.Sum256([]byte(email))
	who := hex.EncodeToString(sum[:])
	a := attempt{
		keys:      [3]string{"signin-addr:" + address, "signin:" + who + "@" + address, "signin:" + who},
		throttles: [3]*ratelimit.Throttle{s.AddressThrottle, s.Throttle, s.Backstop},
	}
	for i, t := range a.throttles {
		if t == nil {
			continue
		}
		d, err := t.Count(ctx, a.keys[i])
		if err != nil {
			s.refund(ctx, a)
			return a, fmt.Errorf("sign in: %w", err)
		}
		if !d.Allowed {
			s.refund(ctx, a)
			return a, ErrThrottled
		}
		a.decisions[i], a.counted = d, i+1
	}
	return a, nil
}

// refund gives back what an attempt counted; a refund that fails leaves it counted, the safe
// side.
func (s *Service) refund(ctx context.Context, a attempt) {
	ctx = context.WithoutCancel(ctx)
	for i := range a.counted {
		if t := a.throttles[i]; t != nil {
			_, _ = t.Refund(ctx, a.keys[i], a.decisions[i])
		}
	}
}

// Authenticate returns the session of a cookie's token and its user, or ErrSessionEnded when it
// is unknown, past SessionTTL, idle longer than SessionIdle, or its user is disabled.
func (s *Service) Authenticate(ctx context.Context, token string) (Session, User, error) {
	if token == "" || len(token) > 100 {
		return Session{}, User{}, ErrSessionEnded
	}
	hash := hashToken(token)
	sess, u, err := s.Store.Session(ctx, hash)
	switch {
	case errors.Is(err, ErrNotFound):
		return Session{}, User{}, ErrSessionEnded
	case err != nil:
		return Session{}, User{}, fmt.Errorf("session: %w", err)
	}
	now := s.now()
	if !now.Before(sess.ExpiresAt) || now.Sub(sess.LastSeenAt) >= SessionIdle || u.DisabledAt != nil {
		return Session{}, User{}, ErrSessionEnded
	}
	if now.Sub(sess.LastSeenAt) >= touchEvery {
		if err := s.Store.TouchSession(ctx, hash, now); err != nil {
			return Session{}, User{}, fmt.Errorf("session: %w", err)
		}
		sess.LastSeenAt = now
	}
	return sess, u, nil
}

// SignOut ends the session of token.
func (s *Service) SignOut(ctx context.Context, token string, by audit.Actor) error {
	return s.Store.DeleteSession(ctx, hashToken(token), by)
}

// SignOutEverywhere ends every session of the user.
func (s *Service) SignOutEverywhere(ctx context.Context, u User, by audit.Actor) error {
	return s.Store.DeleteSessions(ctx, u.ID, by)
}

// User returns the user with this id, as stored now.
func (s *Service) User(ctx context.Context, id uuid.UUID) (User, error) {
	return s.Store.User(ctx, id)
}

// Users returns the account's users, oldest first.
func (s *Service) Users(ctx context.Context, accountID uuid.UUID) ([]User, error) {
	return s.Store.Users(ctx, accountID)
}
