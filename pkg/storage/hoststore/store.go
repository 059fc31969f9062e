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

package hoststore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/sync/semaphore"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/apiserver/pkg/storage/value"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// maxRecordBytes keeps a record under the host's 1 MiB ConfigMap limit with
// room for its metadata.
const maxRecordBytes = 1<<20 - 16<<10

// listBytes bounds the records that lists read from the host at once, by
// their size in the cache. A list holds its host answer, the records decoded
// and its objects at the same time, several times its records' bytes, and
// API Priority and Fairness lends one tenant most of the server's seats
// when no one else asks: without a bound, 32 lists of 100 NodePools at the
// size limit took the server past 500 MiB and the CPU from every other
// request. A list larger than the budget reads alone. With 8 MiB, two such
// lists of 3.2 MiB at once still took it to 280-340 MiB (TestFlood): one
// list of a namespace at the NodePool limit reads at a time.
const listBytes = 4 << 20

// Records makes the storage of each resource: records are ConfigMaps in one
// host namespace, the server's own. It also keeps a cache of them, which
// serves reads that accept any resourceVersion (resourceVersion=0), as the
// watch cache does in kube.
type Records struct {
	client    kubernetes.Interface
	namespace string
	informer  cache.SharedIndexInformer
	// stopped closes when the server stops: every watch then ends, as kube's
	// watch cache ends them, so the server's shutdown need not wait for
	// clients to hang up.
	stopped chan struct{}
	// lists is the budget of listBytes, shared by every resource.
	lists *semaphore.Weighted
	// keeper puts back records changed behind the server's back.
	keeper *keeper
}

// NewRecords returns the records of namespace; Start runs its cache.
func NewRecords(client kubernetes.Interface, namespace string) *Records {
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = LabelResource }))
	r := &Records{client: client, namespace: namespace, informer: factory.Core().V1().ConfigMaps().Informer(), stopped: make(chan struct{}),
		lists: semaphore.NewWeighted(listBytes), keeper: newKeeper(client.CoreV1().ConfigMaps(namespace), namespace)}
	// A fresh informer takes handlers without error.
	_, _ = r.informer.AddEventHandler(r.keeper.handler())
	return r
}

// SetEventer makes the keeper of the records tell users, with Events on
// their objects, what it saw and did; call it before Start.
func (r *Records) SetEventer(e Eventer) { r.keeper.setEventer(e) }

// Start runs the cache and the records' keeper until ctx, the server's
// lifetime, ends; then every watch ends too.
func (r *Records) Start(ctx context.Context) {
	go r.informer.RunWithContext(ctx)
	go r.keeper.run(ctx)
	context.AfterFunc(ctx, func() { close(r.stopped) })
}

// HasSynced says whether the cache has its initial list.
func (r *Records) HasSynced() bool { return r.informer.HasSynced() }

// AddObjectHandler calls added and deleted with the namespace and name of
// each object of resource as its record comes into and goes out of the
// cache (added again on every update), and returns whether the handler has
// seen every record of the cache's first list. The host cache follows
// where simulators are with it.
func (r *Records) AddObjectHandler(resource string, added, deleted func(namespace, name string)) (func() bool, error) {
	of := func(obj interface{}) (objectRef, bool) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		cm, ok := obj.(*corev1.ConfigMap)
		if !ok || !isRecord(cm, resource) {
			return objectRef{}, false
		}
		ref := objectRef{resource: resource, namespace: cm.Labels[LabelNamespace], name: cm.Labels[LabelName]}
		// One whose name is not its labels' is garbage (checkIdentity).
		return ref, cm.Name == ref.recordName()
	}
	add := func(obj interface{}) {
		if ref, ok := of(obj); ok {
			added(ref.namespace, ref.name)
		}
	}
	reg, err := r.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    add,
		UpdateFunc: func(_, obj interface{}) { add(obj) },
		DeleteFunc: func(obj interface{}) {
			ref, ok := of(obj)
			// A record relabelled or deleted behind the server's back
			// comes back (the keeper): its object has not gone.
			if ok && !r.keeper.keeps(ref, obj) {
				deleted(ref.namespace, ref.name)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	return reg.HasSynced, nil
}

// Decorator is the generic.StorageDecorator of host-backed records.
func (r *Records) Decorator(config *storagebackend.ConfigForResource, resourcePrefix string, _ func(runtime.Object) (string, error),
	newFunc func() runtime.Object, newListFunc func() runtime.Object, _ storage.AttrFunc, _ storage.IndexerFuncs, _ *cache.Indexers,
) (storage.Interface, factory.DestroyFunc, error) {
	transformer := config.Transformer
	if transformer == nil {
		transformer = identity.NewEncryptCheckTransformer()
	}
	s := &store{
		client: r.client.CoreV1().ConfigMaps(r.namespace),
		cache:  r.informer.GetIndexer(),
		synced: r.informer.HasSynced,
		codec:  config.Codec,
		// Records are kept as they are encoded unless the configuration
		// says otherwise (kube's encryption at rest would, if its output
		// were text).
		transformer: transformer,
		versioner:   storage.APIObjectVersioner{},
		prefix:      resourcePrefix,
		resource:    config.GroupResource.String(),
		// The decorator is not told the resource's scope; every resource of
		// sim.x-k8s.io is namespaced.
		namespaced: true,
		newFunc:    newFunc,
		newList:    newListFunc,
		recordsNS:  r.namespace,
		stopped:    r.stopped,
		lists:      r.lists,
		keeper:     r.keeper,
	}
	r.keeper.addStore(s)
	return s, func() {}, nil
}

type configMaps interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.ConfigMap, error)
	List(ctx context.Context, opts metav1.ListOptions) (*corev1.ConfigMapList, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	Create(ctx context.Context, cm *corev1.ConfigMap, opts metav1.CreateOptions) (*corev1.ConfigMap, error)
	Update(ctx context.Context, cm *corev1.ConfigMap, opts metav1.UpdateOptions) (*corev1.ConfigMap, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// store is the storage.Interface of one resource.
type store struct {
	client      configMaps
	cache       cache.Indexer
	synced      func() bool
	codec       runtime.Codec
	transformer value.Transformer
	versioner   storage.Versioner
	prefix      string
	resource    string
	namespaced  bool
	newFunc     func() runtime.Object
	newList     func() runtime.Object
	// recordsNS is the namespace of the records, the cache's keys.
	recordsNS string
	// stopped closes when the server stops.
	stopped <-chan struct{}
	// lists bounds the bytes that lists read at once (listBytes); nil is no bound.
	lists *semaphore.Weighted
	// keeper repairs and reports records changed behind the server's back; nil in none.
	keeper *keeper
}

var _ storage.Interface = &store{}

func (s *store) Versioner() storage.Versioner { return s.versioner }

// ref names the object a key (prefix/ns/name) points at; ok is false for a
// key under the prefix that names no object.
func (s *store) ref(key string) (objectRef, bool, error) {
	sc, err := keyFor(s.prefix, key, s.namespaced, false)
	if err != nil {
		return objectRef{}, false, err
	}
	return objectRef{resource: s.resource, namespace: sc.namespace, name: sc.name}, sc.object, nil
}

// encode serializes obj for its record, without a resourceVersion: the
// record's own is the object's. It returns the record and the serialized
// object before transformation, which the writer decodes its answer from,
// as etcd3 does.
func (s *store) encode(ctx context.Context, key string, ref objectRef, obj runtime.Object) (*corev1.ConfigMap, []byte, error) {
	obj = obj.DeepCopyObject()
	if err := s.versioner.PrepareObjectForStorage(obj); err != nil {
		return nil, nil, fmt.Errorf("preparing %s for storage: %w", ref, err)
	}
	var buf bytes.Buffer
	if err := s.codec.Encode(obj, &buf); err != nil {
		return nil, nil, fmt.Errorf("encoding %s: %w", ref, err)
	}
	data, err := s.transformer.TransformToStorage(ctx, buf.Bytes(), value.DefaultContext(key))
	if err != nil {
		return nil, nil, storage.NewInternalError(fmt.Errorf("transforming %s for storage: %w", ref, err))
	}
	if !utf8.Valid(data) {
		// ConfigMap data is text; a transformer that writes binary does not fit.
		return nil, nil, storage.NewInternalError(fmt.Errorf("%s does not transform to text", ref))
	}
	if len(data) > maxRecordBytes {
		return nil, nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("%s is %d bytes; at most %d fit in a record", ref, len(data), maxRecordBytes))
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil, err
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: ref.recordName(), Labels: recordLabels(ref, m)},
		Data:       map[string]string{dataKey: string(data)},
	}, buf.Bytes(), nil
}

// decodeWritten decodes what a writer just wrote (raw, before
// transformation) into out, with the written record's resourceVersion.
func (s *store) decodeWritten(written *corev1.ConfigMap, raw []byte, out runtime.Object) error {
	obj := s.newFunc()
	if _, _, err := s.codec.Decode(raw, nil, obj); err != nil {
		return err
	}
	rv, err := s.versioner.ParseResourceVersion(written.ResourceVersion)
	if err != nil {
		return err
	}
	if err := s.versioner.UpdateObject(obj, rv); err != nil {
		return err
	}
	return setObject(out, obj)
}

// corruptError says a record cannot be read back: it does not transform or
// decode. Unsafe deletion is for these alone.
type corruptError struct{ err error }

// identityError says a record holds another object than its name and
// labels say (checkIdentity): planted, never that object's record.
type identityError struct{ err error }

func (e *identityError) Error() string { return e.err.Error() }
func (e *identityError) Unwrap() error { return e.err }

func (e *corruptError) Error() string { return e.err.Error() }
func (e *corruptError) Unwrap() error { return e.err }

// decode reads a record found by its labels (lists, watches) into a new
// object with the record's resourceVersion; stale says the transformer
// wants it rewritten. Any failure is a *corruptError.
func (s *store) decode(ctx context.Context, cm *corev1.ConfigMap) (obj runtime.Object, stale bool, err error) {
	return s.decodeAs(ctx, cm, labelledRef(cm))
}

// decodeAs is decode of a record found as ref: by its labels, or by its
// name (the hash of ref) whatever its labels say.
func (s *store) decodeAs(ctx context.Context, cm *corev1.ConfigMap, ref objectRef) (obj runtime.Object, stale bool, err error) {
	key := ref.key(s.prefix)
	raw, ok := cm.Data[dataKey]
	if !ok {
		return nil, false, &corruptError{fmt.Errorf("record %s of %s has no %q key", cm.Name, key, dataKey)}
	}
	data, stale, err := s.transformer.TransformFromStorage(ctx, []byte(raw), value.DefaultContext(key))
	if err != nil {
		return nil, false, &corruptError{fmt.Errorf("record %s of %s cannot be transformed: %w", cm.Name, key, err)}
	}
	obj = s.newFunc()
	if _, _, err := s.codec.Decode(data, nil, obj); err != nil {
		return nil, false, &corruptError{fmt.Errorf("record %s of %s cannot be decoded: %w", cm.Name, key, err)}
	}
	if err := checkIdentity(cm, ref, obj); err != nil {
		return nil, false, &corruptError{&identityError{err}}
	}
	rv, err := strconv.ParseUint(cm.ResourceVersion, 10, 64)
	if err != nil {
		return nil, false, &corruptError{fmt.Errorf("record %s of %s has resourceVersion %q: %w", cm.Name, key, cm.ResourceVersion, err)}
	}
	if err := s.versioner.UpdateObject(obj, rv); err != nil {
		return nil, false, err
	}
	return obj, stale, nil
}

// setObject copies obj into out, which must be of the same type.
func setObject(out, obj runtime.Object) error {
	dst, err := conversion.EnforcePtr(out)
	if err != nil {
		return err
	}
	src, err := conversion.EnforcePtr(obj)
	if err != nil {
		return err
	}
	if dst.Type() != src.Type() {
		return fmt.Errorf("cannot store %v into %v", src.Type(), dst.Type())
	}
	dst.Set(src)
	return nil
}

// hostError turns an unexpected host error into an internal error of ours:
// the caller did nothing wrong, and the host's wording (about ConfigMaps and
// the server's account) would only confuse them.
func hostError(op string, ref fmt.Stringer, err error) error {
	if apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) {
		return err
	}
	return storage.NewInternalError(fmt.Errorf("%s %s in the host: %w", op, ref, err))
}

func (s *store) Create(ctx context.Context, key string, obj, out runtime.Object, _ uint64) error {
	if rv, err := s.versioner.ObjectResourceVersion(obj); err == nil && rv != 0 {
		return storage.ErrResourceVersionSetOnCreate
	}
	ref, ok, err := s.ref(key)
	if err != nil {
		return err
	}
	if !ok {
		return storage.NewInternalError(fmt.Errorf("key %q names no object", key))
	}
	cm, raw, err := s.encode(ctx, key, ref, obj)
	if err != nil {
		return err
	}
	created, err := s.client.Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return storage.NewKeyExistsError(key, 0)
	}
	if err != nil {
		return hostError("creating", ref, err)
	}
	if out == nil {
		return nil
	}
	return s.decodeWritten(created, raw, out)
}

// getRecord reads the ConfigMap named for ref, whatever its labels say:
// the name is the hash of ref, so a ConfigMap of that name is ref's record,
// whole or damaged. Were a record whose labels were edited by hand (or
// lost) not found, the object would answer NotFound while a create of its
// name collides, and the host's garbage collector, seeing its owner gone,
// would delete its backing objects without its finalizer's cleanup.
// resourceVersion "0" (any version will do) is served from the cache once
// it has synced; the cache holds only labelled records, so a miss is read
// from the host.
func (s *store) getRecord(ctx context.Context, ref objectRef, rv string) (*corev1.ConfigMap, error) {
	if rv == "0" && s.cache != nil && s.synced() {
		obj, exists, err := s.cache.GetByKey(s.recordsNS + "/" + ref.recordName())
		if err != nil {
			return nil, err
		}
		if exists {
			return obj.(*corev1.ConfigMap), nil
		}
		rv = ""
	}
	return s.client.Get(ctx, ref.recordName(), metav1.GetOptions{ResourceVersion: rv})
}

// readRecord decodes the record of ref found by getRecord. A damaged one
// is a corrupt-object error (an InternalError to the user, naming the
// record and the way out) and the keeper reports it; one whose labels no
// longer say ref is served and the keeper repairs its labels.
func (s *store) readRecord(ctx context.Context, key string, ref objectRef, cm *corev1.ConfigMap) (runtime.Object, bool, error) {
	obj, stale, err := s.decodeAs(ctx, cm, ref)
	if err != nil {
		return nil, false, s.damagedError(key, ref, cm, err)
	}
	if !labelsSay(cm, ref) {
		s.keeper.check(ref)
	}
	return obj, stale, nil
}

// damagedError is the error of a read of ref's record, cm, that cannot be
// decoded: a corrupt-object error (an InternalError to the user) that
// names the record and the way out. The keeper reports the damage.
func (s *store) damagedError(key string, ref objectRef, cm *corev1.ConfigMap, err error) error {
	s.keeper.damaged(ref, cm)
	return storage.NewCorruptObjError(key, fmt.Errorf("%w; the record of %s (ConfigMap %s/%s) is damaged, so %s is kept as it is, with its host objects, "+
		"until an administrator restores the record's data (break-glass: delete the ValidatingAdmissionPolicyBinding sim-apiserver-records, "+
		"repair, apply it again), or deletes the object with --ignore-store-read-error-with-cluster-breaking-potential, which skips its "+
		"finalizer's cleanup", err, ref, s.recordsNS, ref.recordName(), ref))
}

func (s *store) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	ref, ok, err := s.ref(key)
	if err != nil {
		return err
	}
	var cm *corev1.ConfigMap
	if ok {
		cm, err = s.getRecord(ctx, ref, opts.ResourceVersion)
	}
	if !ok || apierrors.IsNotFound(err) {
		if opts.IgnoreNotFound {
			return runtime.SetZeroValue(out)
		}
		return storage.NewKeyNotFoundError(key, 0)
	}
	if err != nil {
		return hostError("reading", ref, err)
	}
	obj, _, err := s.readRecord(ctx, key, ref, cm)
	if err != nil {
		return err
	}
	return setObject(out, obj)
}

// GetList lists the records in the key's scope from the host at one
// revision, orders them by key and pages through them with kube's own
// continue tokens (last key + revision): every page is in key order, and
// the pages of one list follow each other in key order at the revision of
// the first, as with etcd. Each page reads the scope whole from the host
// (at that revision), which costs O(records) per page.
func (s *store) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	sc, err := keyFor(s.prefix, key, s.namespaced, opts.Recursive)
	if err != nil {
		return err
	}
	keyPrefix, err := storage.PrepareKey(strings.TrimSuffix(s.prefix, "/")+"/", key, opts.Recursive)
	if err != nil {
		return err
	}
	listPtr, err := meta.GetItemsPtr(listObj)
	if err != nil {
		return err
	}
	v, err := conversion.EnforcePtr(listPtr)
	if err != nil || v.Kind() != reflect.Slice {
		return fmt.Errorf("list of %s: need a pointer to a slice: %w", s.resource, err)
	}
	withRev, continueKey, err := storage.ValidateListOptions(keyPrefix, s.versioner, opts)
	if err != nil {
		return err
	}
	selector, _ := hostSelector(s.resource, sc, opts.Predicate.Label)
	hostOpts := metav1.ListOptions{LabelSelector: selector}
	switch {
	case withRev > 0:
		hostOpts.ResourceVersion = strconv.FormatInt(withRev, 10)
		hostOpts.ResourceVersionMatch = metav1.ResourceVersionMatchExact
	case opts.Predicate.Continue != "":
		// A continuation at the latest revision (after a 410): read it now.
	case opts.ResourceVersion == "0":
		// Any revision will do; the latest is one, and no older than what
		// this server wrote, which the host's cache may not have yet. The
		// host serves consistent lists from its cache too.
	default:
		hostOpts.ResourceVersion = opts.ResourceVersion
		if opts.ResourceVersion != "" {
			hostOpts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
		}
	}
	release, err := s.acquireList(ctx, sc)
	if err != nil {
		return err
	}
	defer release()
	cms, err := s.client.List(ctx, hostOpts)
	if err != nil {
		if (apierrors.IsResourceExpired(err) || apierrors.IsGone(err)) && opts.Predicate.Continue != "" {
			return expiredContinue(continueKey, keyPrefix)
		}
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) || apierrors.IsBadRequest(err) || apierrors.IsTimeout(err) {
			return err
		}
		return hostError("listing", stringer(s.resource), err)
	}
	listRV, err := s.versioner.ParseResourceVersion(cms.ResourceVersion)
	if err != nil {
		return hostError("listing", stringer(s.resource), err)
	}

	records := make([]keyedRecord, 0, len(cms.Items))
	for i := range cms.Items {
		cm := &cms.Items[i]
		if !isRecord(cm, s.resource) {
			continue
		}
		// The host selected the scope; a continuation starts at its key.
		k := objectKey(s.prefix, cm)
		if k < continueKey {
			continue
		}
		records = append(records, keyedRecord{key: k, cm: cm})
	}
	slices.SortFunc(records, func(a, b keyedRecord) int { return strings.Compare(a.key, b.key) })

	logger := klog.FromContext(ctx)
	limit := opts.Predicate.Limit
	var lastKey string
	hasMore := false
	// The objects grow as the host's answer is read: each record is let go
	// once decoded, so that a list holds about one copy of its bytes, not two.
	size := len(records)
	if limit > 0 && limit < int64(size) {
		size = int(limit)
	}
	v.Set(reflect.MakeSlice(v.Type(), 0, size))
	for i, r := range records {
		obj, _, err := s.decode(ctx, r.cm)
		if err != nil {
			ref := labelledRef(r.cm)
			if planted := (*identityError)(nil); r.cm.Name != ref.recordName() || errors.As(err, &planted) {
				// Planted: it does not hold the object its name and
				// labels say, so it never was that object's record.
				logger.Error(err, "Skipping a ConfigMap labelled as a record that does not hold the object it names", "resource", s.resource, "key", r.key, "configMap", r.cm.Name)
				*r.cm = corev1.ConfigMap{}
				continue
			}
			// A list that left it out would tell every informer that
			// the object was deleted, and the host's garbage collector
			// would delete its dependents without its finalizer's
			// cleanup: the list fails instead, as etcd3's does on a
			// corrupt object, until the record is repaired or the
			// object unsafely deleted.
			return s.damagedError(r.key, ref, r.cm, err)
		}
		*r.cm = corev1.ConfigMap{}
		if ok, err := opts.Predicate.Matches(obj); err != nil || !ok {
			continue
		}
		v.Set(reflect.Append(v, reflect.ValueOf(obj).Elem()))
		lastKey = r.key
		if limit > 0 && int64(v.Len()) == limit {
			// A full page; as etcd3's, it continues if any key follows,
			// so only the last page can come back short (or empty).
			hasMore = i < len(records)-1
			break
		}
	}
	if v.IsNil() {
		// Never a nil list, as etcd3's.
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	}
	rev := int64(listRV)
	if withRev > 0 {
		rev = withRev
	}
	continueValue, remaining, err := storage.PrepareContinueToken(lastKey, keyPrefix, rev, int64(len(records)), hasMore, opts)
	if err != nil {
		return err
	}
	return s.versioner.UpdateList(listObj, uint64(rev), continueValue, remaining)
}

// acquireList waits until a list of the records in sc fits in the budget
// of listBytes, by their size in the cache (all of the scope's, whatever
// the selector), and returns what gives it back. A caller who gives up
// first gets a 429, as from API Priority and Fairness, to retry later.
func (s *store) acquireList(ctx context.Context, sc scope) (func(), error) {
	if s.lists == nil {
		return func() {}, nil
	}
	weight := int64(1)
	if s.cache != nil && s.synced() {
		_, bytes := s.cachedRecords(sc.namespace)
		weight += bytes
	}
	weight = min(weight, listBytes)
	if err := s.lists.Acquire(ctx, weight); err != nil {
		return nil, apierrors.NewTooManyRequests(fmt.Sprintf("too many large lists of %s at once; try again later", s.resource), 1)
	}
	return func() { s.lists.Release(weight) }, nil
}

// cachedRecords counts the resource's records in the cache, of one
// namespace's objects or ("") of all, and the bytes of their objects.
func (s *store) cachedRecords(namespace string) (count, bytes int64) {
	for _, obj := range s.cache.List() {
		if cm, ok := obj.(*corev1.ConfigMap); ok && isRecord(cm, s.resource) && (namespace == "" || cm.Labels[LabelNamespace] == namespace) {
			count++
			bytes += int64(len(cm.Data[dataKey]))
		}
	}
	return count, bytes
}

// keyedRecord is a record with the storage key of its object.
type keyedRecord struct {
	key string
	cm  *corev1.ConfigMap
}

// expiredContinue is etcd3's answer to a continuation whose revision is
// compacted: 410 with a token that continues at the latest revision.
func expiredContinue(continueKey, keyPrefix string) error {
	const inconsistent = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - " +
		"objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."
	token, err := storage.EncodeContinue(continueKey, keyPrefix, -1)
	if err != nil {
		return apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result. " +
			"You can start a new list without the continue parameter.")
	}
	status := apierrors.NewResourceExpired(inconsistent)
	status.ErrStatus.ListMeta.Continue = token
	return status
}

func (s *store) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc, _ runtime.Object,
) error {
	ref, ok, err := s.ref(key)
	if err != nil {
		return err
	}
	if !ok {
		if ignoreNotFound {
			return storage.NewInternalError(fmt.Errorf("key %q names no object", key))
		}
		return storage.NewKeyNotFoundError(key, 0)
	}
	for {
		current, err := s.getRecord(ctx, ref, "")
		exists := err == nil
		if err != nil && !apierrors.IsNotFound(err) {
			return hostError("reading", ref, err)
		}
		if !exists && !ignoreNotFound {
			return storage.NewKeyNotFoundError(key, 0)
		}

		obj := s.newFunc()
		var rv uint64
		stale := false
		if exists {
			// A record whose labels were edited by hand is rewritten
			// below with its own: this write repairs it.
			if obj, stale, err = s.readRecord(ctx, key, ref, current); err != nil {
				return err
			}
			rv = mustParseRV(current.ResourceVersion)
		}
		if err := preconditions.Check(key, obj); err != nil {
			return err
		}
		updated, _, err := tryUpdate(obj.DeepCopyObject(), storage.ResponseMeta{ResourceVersion: rv})
		if err != nil {
			return err
		}
		cm, raw, err := s.encode(ctx, key, ref, updated)
		if err != nil {
			return err
		}

		var written *corev1.ConfigMap
		switch {
		case exists && !stale && current.Data[dataKey] == cm.Data[dataKey] && maps.Equal(current.Labels, cm.Labels):
			// Nothing changed: no write, no new resourceVersion.
			return setObject(destination, obj)
		case exists:
			cm.ResourceVersion = current.ResourceVersion
			cm.UID = current.UID
			written, err = s.client.Update(ctx, cm, metav1.UpdateOptions{})
		default:
			written, err = s.client.Create(ctx, cm, metav1.CreateOptions{})
		}
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) || (exists && apierrors.IsNotFound(err)) {
			// Someone else wrote in between: read again and retry, as etcd3's store does.
			continue
		}
		if err != nil {
			return hostError("writing", ref, err)
		}
		return s.decodeWritten(written, raw, destination)
	}
}

// Delete deletes the object at key. With ExpectTransformOrDecodeError
// (kube's unsafe deletion) only a record that cannot be read is deleted, and
// validateDeletion sees a nil object, as with etcd3.
func (s *store) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc, _ runtime.Object, opts storage.DeleteOptions,
) error {
	ref, ok, err := s.ref(key)
	if err != nil {
		return err
	}
	if !ok {
		return storage.NewKeyNotFoundError(key, 0)
	}
	for {
		current, err := s.getRecord(ctx, ref, "")
		if apierrors.IsNotFound(err) {
			return storage.NewKeyNotFoundError(key, 0)
		}
		if err != nil {
			return hostError("reading", ref, err)
		}
		obj, _, decodeErr := s.decodeAs(ctx, current, ref)
		switch {
		case opts.ExpectTransformOrDecodeError && decodeErr == nil:
			return storage.NewInvalidObjError(key, "unsafe deletion is not allowed because the object is decodable from storage")
		case opts.ExpectTransformOrDecodeError:
			obj = nil
		case decodeErr != nil:
			return storage.NewCorruptObjError(key, decodeErr)
		}
		if preconditions != nil && obj != nil {
			if err := preconditions.Check(key, obj); err != nil {
				return err
			}
		}
		if err := validateDeletion(ctx, obj); err != nil {
			return err
		}
		rv, err := s.deleteRecord(ctx, current)
		if apierrors.IsConflict(err) {
			continue
		}
		if apierrors.IsNotFound(err) {
			return storage.NewKeyNotFoundError(key, 0)
		}
		if err != nil {
			return hostError("deleting", ref, err)
		}
		if obj == nil {
			return nil
		}
		// The object as it was, at the revision of its deletion, as etcd3
		// answers and as watchers see it.
		if err := s.versioner.UpdateObject(obj, rv); err != nil {
			return err
		}
		return setObject(out, obj)
	}
}

// deleteRecord deletes cm if it is unchanged and returns the revision of the
// deletion. The host's DELETE of a ConfigMap answers a Status without it, so
// a watch of the record, opened first, reads it from the DELETED event.
func (s *store) deleteRecord(ctx context.Context, cm *corev1.ConfigMap) (uint64, error) {
	watchCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.client.Watch(watchCtx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", cm.Name).String(),
		ResourceVersion: cm.ResourceVersion,
	})
	if err != nil {
		return 0, err
	}
	defer w.Stop()
	err = s.client.Delete(ctx, cm.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &cm.UID, ResourceVersion: &cm.ResourceVersion},
	})
	if err != nil {
		return 0, err
	}
	for ev := range w.ResultChan() {
		if ev.Type != watch.Deleted {
			continue
		}
		if m, err := meta.Accessor(ev.Object); err == nil && m.GetUID() == cm.UID {
			return s.versioner.ParseResourceVersion(m.GetResourceVersion())
		}
	}
	// The watch ended first (the caller gave up, or the host cut it): the
	// host's current revision is the nearest at which the object is gone.
	return s.GetCurrentResourceVersion(ctx)
}

// Stats counts the resource's records in the cache, and their average
// size: API Priority and Fairness estimates the cost of a list from them.
// Until the cache has synced there is no count.
func (s *store) Stats(context.Context) (storage.Stats, error) {
	if s.cache == nil || !s.synced() {
		return storage.Stats{}, fmt.Errorf("the cache of records has not synced")
	}
	count, size := s.cachedRecords("")
	stats := storage.Stats{ObjectCount: count}
	if count > 0 {
		stats.EstimatedAverageObjectSizeBytes = size / count
	}
	return stats, nil
}

func (s *store) ReadinessCheck() error                               { return nil }
func (s *store) RequestWatchProgress(context.Context) error          { return nil }
func (s *store) EnableResourceSizeEstimation(storage.KeysFunc) error { return nil }
func (s *store) CompactRevision() int64                              { return 0 }

// GetCurrentResourceVersion is the host's newest resourceVersion of our records.
func (s *store) GetCurrentResourceVersion(ctx context.Context) (uint64, error) {
	selector, _ := hostSelector(s.resource, scope{}, nil)
	list, err := s.client.List(ctx, metav1.ListOptions{LabelSelector: selector, Limit: 1})
	if err != nil {
		return 0, hostError("listing", stringer(s.resource), err)
	}
	return mustParseRV(list.ResourceVersion), nil
}

type stringer string

func (s stringer) String() string { return string(s) }

func mustParseRV(rv string) uint64 {
	n, _ := strconv.ParseUint(rv, 10, 64)
	return n
}
