package hoststore

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"reflect"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// maxRecordBytes keeps a record under the host's 1 MiB ConfigMap limit with
// room for its metadata.
const maxRecordBytes = 1<<20 - 16<<10

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
}

// NewRecords returns the records of namespace; Start runs its cache.
func NewRecords(client kubernetes.Interface, namespace string) *Records {
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = LabelResource }))
	return &Records{client: client, namespace: namespace, informer: factory.Core().V1().ConfigMaps().Informer(), stopped: make(chan struct{})}
}

// Start runs the cache until ctx, the server's lifetime, ends; then every
// watch ends too.
func (r *Records) Start(ctx context.Context) {
	go r.informer.RunWithContext(ctx)
	context.AfterFunc(ctx, func() { close(r.stopped) })
}

// HasSynced says whether the cache has its initial list.
func (r *Records) HasSynced() bool { return r.informer.HasSynced() }

// Decorator is the generic.StorageDecorator of host-backed records.
func (r *Records) Decorator(config *storagebackend.ConfigForResource, resourcePrefix string, _ func(runtime.Object) (string, error),
	newFunc func() runtime.Object, newListFunc func() runtime.Object, _ storage.AttrFunc, _ storage.IndexerFuncs, _ *cache.Indexers,
) (storage.Interface, factory.DestroyFunc, error) {
	s := &store{
		client:    r.client.CoreV1().ConfigMaps(r.namespace),
		cache:     r.informer.GetIndexer(),
		synced:    r.informer.HasSynced,
		codec:     config.Codec,
		versioner: storage.APIObjectVersioner{},
		prefix:    resourcePrefix,
		resource:  config.GroupResource.String(),
		// The decorator is not told the resource's scope; every resource of
		// sim.x-k8s.io is namespaced.
		namespaced: true,
		newFunc:    newFunc,
		newList:    newListFunc,
		recordsNS:  r.namespace,
		stopped:    r.stopped,
	}
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
	client     configMaps
	cache      cache.Indexer
	synced     func() bool
	codec      runtime.Codec
	versioner  storage.Versioner
	prefix     string
	resource   string
	namespaced bool
	newFunc    func() runtime.Object
	newList    func() runtime.Object
	// recordsNS is the namespace of the records, the cache's keys.
	recordsNS string
	// stopped closes when the server stops.
	stopped <-chan struct{}
}

var _ storage.Interface = &store{}

func (s *store) Versioner() storage.Versioner { return s.versioner }

// ref names the object a key (prefix/ns/name) points at.
func (s *store) ref(key string) (objectRef, error) {
	sc, err := keyFor(s.prefix, key, s.namespaced, false)
	if err != nil {
		return objectRef{}, storage.NewInternalError(err)
	}
	return objectRef{resource: s.resource, namespace: sc.namespace, name: sc.name}, nil
}

// encode serializes obj for its record, without a resourceVersion: the
// record's own is the object's.
func (s *store) encode(ref objectRef, obj runtime.Object) (*corev1.ConfigMap, error) {
	obj = obj.DeepCopyObject()
	if err := s.versioner.PrepareObjectForStorage(obj); err != nil {
		return nil, fmt.Errorf("preparing %s for storage: %w", ref, err)
	}
	var buf bytes.Buffer
	if err := s.codec.Encode(obj, &buf); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", ref, err)
	}
	if buf.Len() > maxRecordBytes {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("%s is %d bytes; at most %d fit in a record", ref, buf.Len(), maxRecordBytes))
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: ref.recordName(), Labels: recordLabels(ref, m)},
		Data:       map[string]string{dataKey: buf.String()},
	}, nil
}

// decode reads a record into into, with the record's resourceVersion.
func (s *store) decode(cm *corev1.ConfigMap, into runtime.Object) error {
	data, ok := cm.Data[dataKey]
	if !ok {
		return fmt.Errorf("record %s has no %q key", cm.Name, dataKey)
	}
	if _, _, err := s.codec.Decode([]byte(data), nil, into); err != nil {
		return fmt.Errorf("record %s cannot be decoded: %w", cm.Name, err)
	}
	if err := checkIdentity(cm, s.resource, into); err != nil {
		return err
	}
	rv, err := strconv.ParseUint(cm.ResourceVersion, 10, 64)
	if err != nil {
		return fmt.Errorf("record %s has resourceVersion %q: %w", cm.Name, cm.ResourceVersion, err)
	}
	return s.versioner.UpdateObject(into, rv)
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
	ref, err := s.ref(key)
	if err != nil {
		return err
	}
	cm, err := s.encode(ref, obj)
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
	return s.decode(created, out)
}

// getRecord reads the record of ref; a ConfigMap that is not such a record
// is reported as not found. resourceVersion "0" (any version will do) is
// served from the cache once it has synced.
func (s *store) getRecord(ctx context.Context, ref objectRef, rv string) (*corev1.ConfigMap, error) {
	var cm *corev1.ConfigMap
	if rv == "0" && s.cache != nil && s.synced() {
		obj, exists, err := s.cache.GetByKey(s.recordsNS + "/" + ref.recordName())
		if err != nil {
			return nil, err
		}
		if !exists {
			return nil, apierrors.NewNotFound(corev1.Resource("configmaps"), ref.recordName())
		}
		cm = obj.(*corev1.ConfigMap)
	} else {
		var err error
		if cm, err = s.client.Get(ctx, ref.recordName(), metav1.GetOptions{ResourceVersion: rv}); err != nil {
			return nil, err
		}
	}
	if !isRecord(cm, s.resource) || cm.Labels[LabelName] != ref.name || cm.Labels[LabelNamespace] != ref.namespace {
		return nil, apierrors.NewNotFound(corev1.Resource("configmaps"), ref.recordName())
	}
	return cm, nil
}

func (s *store) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	ref, err := s.ref(key)
	if err != nil {
		return err
	}
	cm, err := s.getRecord(ctx, ref, opts.ResourceVersion)
	if apierrors.IsNotFound(err) {
		if opts.IgnoreNotFound {
			return runtime.SetZeroValue(out)
		}
		return storage.NewKeyNotFoundError(key, 0)
	}
	if err != nil {
		return hostError("reading", ref, err)
	}
	if err := s.decode(cm, out); err != nil {
		return storage.NewCorruptObjError(key, err)
	}
	return nil
}

func (s *store) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	sc, err := keyFor(s.prefix, key, s.namespaced, opts.Recursive)
	if err != nil {
		return storage.NewInternalError(err)
	}
	listPtr, err := meta.GetItemsPtr(listObj)
	if err != nil {
		return err
	}
	v, err := conversion.EnforcePtr(listPtr)
	if err != nil {
		return fmt.Errorf("list of %s: %w", s.resource, err)
	}
	selector, pushed := hostSelector(s.resource, sc, opts.Predicate.Label)
	hostOpts := metav1.ListOptions{
		LabelSelector:        selector,
		ResourceVersion:      opts.ResourceVersion,
		ResourceVersionMatch: opts.ResourceVersionMatch,
		Limit:                opts.Predicate.Limit,
		Continue:             opts.Predicate.Continue,
	}
	cms, err := s.client.List(ctx, hostOpts)
	if err != nil {
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) || apierrors.IsBadRequest(err) {
			// Expired continue tokens and too-old resourceVersions mean the same here.
			return err
		}
		return hostError("listing", stringer(s.resource), err)
	}
	logger := klog.FromContext(ctx)
	for i := range cms.Items {
		cm := &cms.Items[i]
		obj := s.newFunc()
		if err := s.decode(cm, obj); err != nil {
			// One bad record must not take the whole list down.
			logger.Error(err, "Skipping a record that cannot be decoded", "resource", s.resource, "record", cm.Name,
				"namespace", cm.Labels[LabelNamespace], "name", cm.Labels[LabelName])
			continue
		}
		if ok, err := opts.Predicate.Matches(obj); err != nil || !ok {
			continue
		}
		v.Set(appendValue(v, obj))
	}
	var remaining *int64
	if pushed && opts.Predicate.Field.Empty() {
		remaining = cms.RemainingItemCount
	}
	return s.versioner.UpdateList(listObj, mustParseRV(cms.ResourceVersion), cms.Continue, remaining)
}

func (s *store) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc, _ runtime.Object,
) error {
	ref, err := s.ref(key)
	if err != nil {
		return err
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
		if exists {
			if err := s.decode(current, obj); err != nil {
				return storage.NewCorruptObjError(key, err)
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
		cm, err := s.encode(ref, updated)
		if err != nil {
			return err
		}

		var written *corev1.ConfigMap
		switch {
		case exists && current.Data[dataKey] == cm.Data[dataKey] && maps.Equal(current.Labels, cm.Labels):
			// Nothing changed: no write, no new resourceVersion.
			return s.decode(current, destination)
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
		return s.decode(written, destination)
	}
}

func (s *store) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc, _ runtime.Object, opts storage.DeleteOptions,
) error {
	ref, err := s.ref(key)
	if err != nil {
		return err
	}
	for {
		current, err := s.getRecord(ctx, ref, "")
		if apierrors.IsNotFound(err) {
			return storage.NewKeyNotFoundError(key, 0)
		}
		if err != nil {
			return hostError("reading", ref, err)
		}
		decodeErr := s.decode(current, out)
		switch {
		case opts.ExpectTransformOrDecodeError && decodeErr == nil:
			return storage.NewInternalError(fmt.Errorf("%s decodes: it is not corrupt", ref))
		case !opts.ExpectTransformOrDecodeError && decodeErr != nil:
			return storage.NewCorruptObjError(key, decodeErr)
		case decodeErr == nil:
			if err := preconditions.Check(key, out); err != nil {
				return err
			}
			if err := validateDeletion(ctx, out); err != nil {
				return err
			}
		}
		err = s.client.Delete(ctx, current.Name, metav1.DeleteOptions{
			Preconditions: &metav1.Preconditions{UID: &current.UID, ResourceVersion: &current.ResourceVersion},
		})
		if apierrors.IsConflict(err) {
			continue
		}
		if apierrors.IsNotFound(err) {
			return storage.NewKeyNotFoundError(key, 0)
		}
		if err != nil {
			return hostError("deleting", ref, err)
		}
		return nil
	}
}

func (s *store) Stats(context.Context) (storage.Stats, error)        { return storage.Stats{}, nil }
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

// appendValue appends the object obj points at to the slice v.
func appendValue(v reflect.Value, obj runtime.Object) reflect.Value {
	return reflect.Append(v, reflect.ValueOf(obj).Elem())
}
