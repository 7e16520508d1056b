package people

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/statementmatch/service/internal/audit"
)

// The second factor is a TOTP authenticator (RFC 6238): six digits, a new code every 30 seconds,
// the code before and after the current one accepted for clocks that drift, and no code twice.
const (
	totpPeriod = 30
	totpSkew   = 1
	// ChallengeTTL is how long a sign-in whose password was right waits for its code.
	ChallengeTTL = 5 * time.Minute
	// ChallengeAttempts is how many wrong codes end such a sign-in: the password is due again.
	ChallengeAttempts = 5
	// DefaultIssuer names the service in the user's authenticator app.
	DefaultIssuer = "Statement Matching"
)

var totpOptions = totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// Errors of the second factor.
var (
	// ErrInvalidCode: a code that is not the authenticator's now, or was used already.
	ErrInvalidCode = errors.New("the code is not valid")
	// ErrChallengeEnded: the sign-in waiting for a code is unknown, older than ChallengeTTL, or
	// had ChallengeAttempts wrong codes; the password is due again.
	ErrChallengeEnded = errors.New("the sign-in has ended")
)

// Sealer encrypts the secrets of authenticators, which must be read back to check a code;
// internal/platform/secretbox implements it.
type Sealer interface {
	Seal(plain []byte) ([]byte, error)
	Open(sealed []byte) ([]byte, error)
}

// Challenge is a sign-in whose password was right, waiting for the second factor's code; kept
// as the hash of the token the browser holds.
type Challenge struct {
	Hash      []byte
	UserID    uuid.UUID
	CreatedAt time.Time
	ExpiresAt time.Time
	// Attempts counts the wrong codes given so far.
	Attempts int
	Address  string
}

// SecondFactorSecrets are a user's sealed authenticator secrets: the one in use and the one
// being set up (nil when none), and the time step of the last code accepted.
type SecondFactorSecrets struct {
	Sealed, Pending []byte
	LastStep        int64
}

// Enrollment is an authenticator being set up: its secret, to type in, and the otpauth URL the
// page shows as a QR code.
type Enrollment struct {
	Secret string
	URL    string
}

// SignInResult is a sign-in that got past the password: either a session (Token is its cookie's
// token), or, for a user with a second factor, a Challenge token for the code's step.
type SignInResult struct {
	Session Session
	Token   string
	User    User
	// Challenge is set, and Session empty, when the user's code is due.
	Challenge string
}

// BeginSecondFactor starts setting up an authenticator for u: a new secret, kept sealed until a
// code from it confirms it (EnableSecondFactor). A user with a second factor already is
// ErrConflict: they remove it first.
func (s *Service) BeginSecondFactor(ctx context.Context, u User) (Enrollment, error) {
	if u.SecondFactorSince != nil {
		return Enrollment{}, fmt.Errorf("%w: a second factor is set up already", ErrConflict)
	}
	secret := make([]byte, 20)
	_, _ = rand.Read(secret) // crypto/rand.Read never fails (Go 1.24+)
	key, err := s.key(u, secret)
	if err != nil {
		return Enrollment{}, err
	}
	sealed, err := s.Sealer.Seal([]byte(key.Secret()))
	if err != nil {
		return Enrollment{}, fmt.Errorf("seal authenticator secret: %w", err)
	}
	if err := s.Store.SetPendingSecondFactor(ctx, u.ID, sealed); err != nil {
		return Enrollment{}, fmt.Errorf("begin second factor: %w", err)
	}
	return Enrollment{Secret: key.Secret(), URL: key.URL()}, nil
}

// PendingSecondFactor returns the authenticator u is setting up, to show it again after a wrong
// code; ErrNotFound when none is.
func (s *Service) PendingSecondFactor(ctx context.Context, u User) (Enrollment, error) {
	secrets, err := s.Store.SecondFactor(ctx, u.ID)
	if err != nil {
		return Enrollment{}, fmt.Errorf("pending second factor: %w", err)
	}
	if secrets.Pending == nil {
		return Enrollment{}, fmt.Errorf("%w: no authenticator is being set up", ErrNotFound)
	}
	encoded, err := s.Sealer.Open(secrets.Pending)
	if err != nil {
		return Enrollment{}, fmt.Errorf("open authenticator secret: %w", err)
	}
	secret, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(string(encoded))
	if err != nil {
		return Enrollment{}, fmt.Errorf("decode authenticator secret: %w", err)
	}
	key, err := s.key(u, secret)
	if err != nil {
		return Enrollment{}, err
	}
	return Enrollment{Secret: key.Secret(), URL: key.URL()}, nil
}

// key is the authenticator key of u with secret, named for the authenticator app.
func (s *Service) key(u User, secret []byte) (*otp.Key, error) {
	issuer := s.Issuer
	if issuer == "" {
		issuer = DefaultIssuer
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: u.Email, Period: totpPeriod,
		Secret: secret, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return nil, fmt.Errorf("authenticator key: %w", err)
	}
	return key, nil
}

// EnableSecondFactor turns on the authenticator u is setting up, once their password (under the
// sign-in throttles) and a code from it are right: from then on, signing in asks for a code.
// Without a setup begun it is ErrNotFound; a wrong code is ErrInvalidCode.
func (s *Service) EnableSecondFactor(ctx context.Context, u User, password, code, address string) error {
	if err := s.ConfirmPassword(ctx, u, password, address); err != nil {
		return err
	}
	secrets, err := s.Store.SecondFactor(ctx, u.ID)
	if err != nil {
		return fmt.Errorf("enable second factor: %w", err)
	}
	if secrets.Pending == nil {
		return fmt.Errorf("%w: no authenticator is being set up", ErrNotFound)
	}
	step, err := s.checkCode(secrets.Pending, code, 0)
	if err != nil {
		return err
	}
	return s.Store.EnableSecondFactor(ctx, u, step, s.now(), address)
}

// DisableSecondFactor removes u's own second factor once their password is right (under the
// sign-in throttles): they sign in with the password alone again.
func (s *Service) DisableSecondFactor(ctx context.Context, u User, password, address string) error {
	if err := s.ConfirmPassword(ctx, u, password, address); err != nil {
		return err
	}
	_, err := s.Store.DisableSecondFactor(ctx, u.AccountID, u.ID, u.Actor(address))
	return err
}

// RemoveSecondFactor removes the second factor of the account's user userID, who lost their
// authenticator, on an owner's word (by); an owner removes their own with their password
// (DisableSecondFactor), so this is ErrSelf for them. Another account's user is ErrNotFound.
func (s *Service) RemoveSecondFactor(ctx context.Context, by User, address string, userID uuid.UUID) (User, error) {
	if userID == by.ID {
		return User{}, ErrSelf
	}
	return s.Store.DisableSecondFactor(ctx, by.AccountID, userID, by.Actor(address))
}

// ResetSecondFactor removes the second factor of the user with email, for the operator
// (`statementd admin`), when no owner of the account can sign in to do it.
func (s *Service) ResetSecondFactor(ctx context.Context, accountID uuid.UUID, email string) (User, error) {
	u, err := s.Store.UserByEmail(ctx, email)
	if err == nil && u.AccountID != accountID {
		err = ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("reset second factor: %w", err)
	}
	return s.Store.DisableSecondFactor(ctx, accountID, u.ID, audit.Operator)
}

// SignInCode finishes a sign-in whose password was right (its challenge token) with the
// authenticator's code, from address, under the same throttles as passwords: a session starts.
// A wrong or reused code is ErrInvalidCode; after ChallengeAttempts of them, or ChallengeTTL, it
// is ErrChallengeEnded.
func (s *Service) SignInCode(ctx context.Context, challenge, code, address string) (SignInResult, error) {
	if challenge == "" || len(challenge) > 100 {
		return SignInResult{}, ErrChallengeEnded
	}
	hash := hashToken(challenge)
	c, u, err := s.Store.Challenge(ctx, hash)
	switch {
	case errors.Is(err, ErrNotFound):
		return SignInResult{}, ErrChallengeEnded
	case err != nil:
		return SignInResult{}, fmt.Errorf("sign in: %w", err)
	}
	now := s.now()
	if !now.Before(c.ExpiresAt) || c.Attempts >= ChallengeAttempts || u.DisabledAt != nil || u.SecondFactorSince == nil {
		return SignInResult{}, ErrChallengeEnded
	}
	att, err := s.count(ctx, strings.ToLower(u.Email), address)
	if err != nil {
		return SignInResult{}, err
	}
	secrets, err := s.Store.SecondFactor(ctx, u.ID)
	if err != nil {
		s.refund(ctx, att)
		return SignInResult{}, fmt.Errorf("sign in: %w", err)
	}
	step, err := s.checkCode(secrets.Sealed, code, secrets.LastStep)
	if err != nil {
		if errors.Is(err, ErrInvalidCode) {
			_ = s.Store.FailChallenge(ctx, hash, u, address, now)
		}
		return SignInResult{}, err
	}
	s.refund(ctx, att)
	sess, token := newSession(u, address, now)
	switch err := s.Store.CompleteChallenge(ctx, hash, step, sess, u); {
	case errors.Is(err, ErrInvalidCode), errors.Is(err, ErrNotFound):
		// Another request used the challenge or the code in the meantime.
		return SignInResult{}, ErrInvalidCode
	case err != nil:
		return SignInResult{}, fmt.Errorf("sign in: %w", err)
	}
	return SignInResult{Session: sess, Token: token, User: u}, nil
}

// checkCode opens a sealed authenticator secret and returns the time step of code if it is the
// authenticator's code now (or a step before or after) and later than step after; anything else
// is ErrInvalidCode.
func (s *Service) checkCode(sealed []byte, code string, after int64) (int64, error) {
	code = strings.Join(strings.Fields(code), "")
	if len(code) != int(otp.DigitsSix) || strings.Trim(code, "0123456789") != "" {
		return 0, ErrInvalidCode
	}
	secret, err := s.Sealer.Open(sealed)
	if err != nil {
		return 0, fmt.Errorf("open authenticator secret: %w", err)
	}
	now := s.Now()
	current := now.Unix() / totpPeriod
	var found int64 = -1
	for step := current - totpSkew; step <= current+totpSkew; step++ {
		want, err := totp.GenerateCodeCustom(string(secret), time.Unix(step*totpPeriod, 0), totpOptions)
		if err != nil {
			return 0, fmt.Errorf("authenticator code: %w", err)
		}
		// Every step is compared, in constant time, so the time taken says nothing of which.
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			found = step
		}
	}
	if found <= after {
		return 0, ErrInvalidCode
	}
	return found, nil
}
