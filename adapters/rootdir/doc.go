// Package rootdir guards a storage root: the exclusive <root>/.lock held by
// the running server, and the <root>/.backend marker that records which
// storage backend the root holds.
//
// # Caveats
//
//   - The lock is flock(2) on <root>/.lock: advisory, per open file, and
//     released by the kernel when the process dies, so a kill -9 never
//     leaves a stale lock. It does not work across NFS mounts that lack
//     flock support.
//   - The pid and address in .lock are written after the lock is taken and
//     are for messages only; a reader that races the holder's write may see
//     them empty.
//   - The .backend marker is written once, at the first start on a root;
//     `kg migrate --to …` rewrites it.
package rootdir
