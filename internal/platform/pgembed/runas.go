package pgembed

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// postgresUser is the OS account the server runs as when we are root.
// PostgreSQL refuses to run as root (a compromised server would own the
// machine), and Debian's package creates this account.
const postgresUser = "postgres"

// identity is the OS user initdb and postgres run as.
type identity struct {
	// cred is nil when we are not root: the children then simply run as us.
	cred *syscall.Credential
	uid  int
	gids []int // primary group first, then supplementary groups
	name string
}

// lookupIdentity decides who runs the server: the current user, or the
// postgres account when we are root.
func lookupIdentity() (*identity, error) {
	if os.Geteuid() != 0 {
		gids, _ := os.Getgroups()
		return &identity{uid: os.Geteuid(), gids: append([]int{os.Getegid()}, gids...), name: "current user"}, nil
	}
	u, err := user.Lookup(postgresUser)
	if err != nil {
		return nil, fmt.Errorf("pgembed: running as root, but PostgreSQL refuses to run as root and there is no %q OS user to run it as (%v): "+
			"install the PostgreSQL server package (it creates that user), create it with useradd --system %s, or run as a non-root user",
			postgresUser, err, postgresUser)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("pgembed: OS user %q has a non-numeric uid/gid: %w", postgresUser, err)
	}
	id := &identity{
		// Groups is set explicitly (possibly to nothing) because leaving it
		// out would let the server inherit root's supplementary groups.
		cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}},
		uid:  uid,
		gids: []int{gid},
		name: fmt.Sprintf("OS user %q (uid %d)", postgresUser, uid),
	}
	groups, _ := u.GroupIds() // best effort: the primary group is what matters
	for _, g := range groups {
		if n, err := strconv.Atoi(g); err == nil && n != gid {
			id.cred.Groups = append(id.cred.Groups, uint32(n))
			id.gids = append(id.gids, n)
		}
	}
	return id, nil
}

// chown hands a directory or file we created to the server's user, so that
// postgres (not root) can use it. It is a no-op when we are not root.
func (id *identity) chown(path string) error {
	if id.cred == nil {
		return nil
	}
	if err := os.Chown(path, int(id.cred.Uid), int(id.cred.Gid)); err != nil {
		return fmt.Errorf("pgembed: chown %s to %s: %w", path, id.name, err)
	}
	return nil
}

// checkTraversable verifies that the server's user can reach path: every
// directory from / down to path must be searchable by it. Without this check
// a root-owned 0700 parent (such as /root or a t.TempDir) shows up only as an
// obscure initdb or postgres "permission denied". ACLs are not considered.
func (id *identity) checkTraversable(path string) error {
	if id.cred == nil {
		return nil // we created or can reach the path as ourselves
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("pgembed: %w", err)
		}
		if !id.canSearch(fi) {
			return fmt.Errorf("pgembed: directory %s (mode %v) is not traversable by %s, which runs PostgreSQL because PostgreSQL refuses to run as root: "+
				"put the data folder elsewhere or make that directory traversable (chmod o+x %s)",
				dir, fi.Mode().Perm(), id.name, dir)
		}
		if dir == filepath.Dir(dir) {
			return nil
		}
	}
}

// canSearch applies the classic owner/group/other permission check for the
// execute (search) bit of a directory.
func (id *identity) canSearch(fi fs.FileInfo) bool {
	perm := fi.Mode().Perm()
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return perm&0o001 != 0
	}
	switch {
	case int(st.Uid) == id.uid:
		return perm&0o100 != 0
	case slices.Contains(id.gids, int(st.Gid)):
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}
