/*
Copyright 2026 The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package hoststore keeps the objects of our resources as records in the host
// cluster, behind k8s.io/apiserver's storage.Interface, so that
// genericregistry.Store serves them with no database of its own.
//
// A record is a ConfigMap in the server's own namespace, named by a hash of
// resource/namespace/name, labelled with them and with the object's own
// labels, holding the object (through the configured value.Transformer, whose
// output must be text) without its resourceVersion: the record's is the
// object's, a host etcd revision.
//
// Order. Lists come in key order (namespace, then name), as etcd's: a list
// reads its scope whole from the host at one revision, sorts it by key and
// pages it with kube's own continue tokens (last key + revision), so pages
// follow each other in key order at the revision of the first, and only the
// last page can come back short. Each page re-reads the scope at that
// revision (O(records) per page); a token outlives the host's compaction as
// etcd3's do (410, with a token that continues at the latest revision).
// Record names stay hashes: the order is served, not stored. A list at
// resourceVersion 0 reads the host's latest (the host serves consistent
// lists from its cache), so it never misses this server's own writes.
// Initial watch events (resourceVersion unset or 0, or sendInitialEvents)
// are collected up to the host's initial-events-end bookmark and sorted.
//
// Watches give their API Priority and Fairness seat back once set up. A
// ConfigMap watch has no previous object, so for field selectors a watcher
// keeps what matches (from a list at its start) and computes ADDED/DELETED
// transitions itself. A record that cannot be read ends a watch with an
// error event (StoreReadError for a deletion), so the watcher relists; lists
// skip and log it; a get reports it, and unsafe deletion removes it.
// Delete answers the object at the revision of its deletion, read from a
// watch of the record, since the host's DELETE answers without it.
//
// Records changed behind the server's back (keeper.go): a get finds a
// record by its name whatever its labels say, so that a name never answers
// NotFound while a create of it collides, nor lets the host's garbage
// collector take its owner for gone; a keeper on every replica puts back
// the labels of a relabelled record, makes a record deleted while its
// object was live again as a deleted object (so that its finalizer's
// cleanup runs), and tells of each, and of damaged records, with Events.
// The host's garbage collector deletes an owner's dependents on the word of
// a watch's DELETED, or of a relist that misses the owner, without asking
// again: so a watcher is never told DELETED of an object still there (a
// host DELETED of a record that went without the server is checked by name:
// restored, or relabelled, it is not told), and a list fails on a damaged
// record, naming it, as etcd3's does, rather than leave its object out.
//
// Kubernetes' storage test suite (k8s.io/apiserver/pkg/storage/testing) runs
// against this package in test/integration/storagesuite. What differs, and
// why it is inherent to records in a host:
//   - List, ListInconsistentContinuation, WatchFromZero (its second half):
//     revisions are the host's, shared with every writer of the host, so
//     exact list revisions differ; and the host's watch cache keeps serving a
//     revision its etcd compacted behind its back, so no 410 comes.
//   - WatchSemantics (resourceVersion=1, sendInitialEvents=false): history
//     before the host's watch-cache window is gone (410), as in kube's cache.
//   - GetListWithErrorAggregation, GetListWithoutErrorAggregation,
//     TransformationFailure: by design an unreadable record is skipped by
//     lists and is a corrupt-object error (not an internal one) elsewhere.
//   - GuaranteedUpdateChecksStoredData: the host makes no revision for an
//     update that changes nothing, so a stale-but-identical rewrite is a no-op.
//   - CreateWithTTL, GuaranteedUpdateWithTTL: ConfigMaps have no TTL.
//   - CompactRevision, ProgressNotify: etcd and watch-cache features
//     (compaction hook, progress notifications) the host does not offer to
//     its clients.
//   - Stats: served (API Priority and Fairness's list cost estimate), from
//     the records' cache: the count, and the average of the records' own
//     bytes, which the upstream test computes as the etcd3 store's encoding
//     of the object instead (or wants absent).
//   - GuaranteedUpdateWithConflict, KeySchema: they store objects whose
//     metadata does not name their key (another name, or none). A record must
//     hold the object its key names, or it is garbage (checkIdentity), so that
//     nobody who can write ConfigMaps in the records' namespace can plant an
//     object under another namespace's key; kube's etcd3 store leaves that
//     check to the registry, which cannot see a planted record.
package hoststore
