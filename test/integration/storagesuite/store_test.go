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

package storagesuite

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/apitesting"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/example"
	examplev1 "k8s.io/apiserver/pkg/apis/example/v1"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	storagetesting "k8s.io/apiserver/pkg/storage/testing"
	"k8s.io/apiserver/pkg/storage/value"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"sigs.k8s.io/simulator-apiserver/pkg/storage/hoststore"
)

var (
	scheme = runtime.NewScheme()
	codecs = serializer.NewCodecFactory(scheme)
	// errCorrupt is what a transformer injected by the suite fails with.
	errCorrupt = errors.New("bits flipped")
)

func init() {
	metav1.AddToGroupVersion(scheme, metav1.SchemeGroupVersion)
	utilruntime.Must(example.AddToScheme(scheme))
	utilruntime.Must(examplev1.AddToScheme(scheme))
}

// testStore is hoststore's storage.Interface for the example Pods, with
// the hooks the suite needs: a transformer it can swap and a codec whose
// decoding it can break.
type testStore struct {
	storage.Interface
	codec  *failingCodec
	client kubernetes.Interface
	// namespace holds this test's records.
	namespace string
	// transformer is what hoststore transforms records with; the suite
	// swaps the one inside.
	transformer *swappableTransformer
}

// newTestStore returns a store whose records live in a new namespace of
// the shared host, with its records cache running for the test.
func newTestStore(t *testing.T) *testStore {
	t.Helper()
	if cluster == nil {
		t.Skip(skipReason)
	}
	config := rest.CopyConfig(cluster.Config)
	// The suite's concurrency tests must not be throttled by the client.
	config.QPS, config.Burst = 1000, 2000
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	ns := takeNamespace(t)
	codec := &failingCodec{Codec: apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion)}
	transformer := &swappableTransformer{}
	transformer.set(storagetesting.NewPrefixTransformer([]byte("test!"), false))
	records := hoststore.NewRecords(client, ns)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	records.Start(ctx)
	if !cache.WaitForCacheSync(t.Context().Done(), records.HasSynced) {
		t.Fatal("records cache did not sync")
	}
	storageConfig := storagebackend.NewDefaultConfig("", codec)
	storageConfig.Transformer = transformer
	s, destroy, err := records.Decorator(storageConfig.ForResource(schema.GroupResource{Resource: "pods"}), "/pods", nil,
		func() runtime.Object { return &example.Pod{} }, func() runtime.Object { return &example.PodList{} }, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(destroy)
	return &testStore{Interface: s, codec: codec, client: client, namespace: ns, transformer: transformer}
}

// UpdatePrefixTransformer swaps the records' transformer, as the suite's
// InterfaceWithPrefixTransformer.
func (s *testStore) UpdatePrefixTransformer(modifier storagetesting.PrefixTransformerModifier) func() {
	orig := s.transformer.get()
	prefix := *orig.(*storagetesting.PrefixTransformer)
	s.transformer.set(modifier(&prefix))
	return func() { s.transformer.set(orig) }
}

// UpdateTransformer swaps the records' transformer, as the suite's
// InterfaceWithTransformerOverride.
func (s *testStore) UpdateTransformer(modifier storagetesting.TransformerModifier) func() {
	orig := s.transformer.get()
	s.transformer.set(modifier(orig))
	return func() { s.transformer.set(orig) }
}

// checkStorageInvariants checks the record of key: it exists, and the
// object in it has no resourceVersion (the record's own is the object's).
func (s *testStore) checkStorageInvariants(ctx context.Context, t *testing.T, key string) {
	t.Helper()
	parts := strings.Split(strings.TrimPrefix(key, "/pods/"), "/")
	if len(parts) != 2 {
		t.Fatalf("key %q is not /pods/<ns>/<name>", key)
	}
	cms, err := s.client.CoreV1().ConfigMaps(s.namespace).List(ctx, metav1.ListOptions{
		LabelSelector: fmt.Sprintf("%s=%s,%s=%s", hoststore.LabelNamespace, parts[0], hoststore.LabelName, parts[1]),
	})
	if err != nil || len(cms.Items) != 1 {
		t.Fatalf("record of %s: %v, %d found", key, err, len(cms.Items))
	}
	data, _, err := s.transformer.TransformFromStorage(ctx, []byte(cms.Items[0].Data["object"]), value.DefaultContext(key))
	if err != nil {
		t.Fatalf("record of %s: %v", key, err)
	}
	obj, err := runtime.Decode(s.codec, data)
	if err != nil {
		t.Fatalf("record of %s does not decode: %v", key, err)
	}
	if rv := obj.(*example.Pod).ResourceVersion; rv != "" {
		t.Errorf("record of %s holds resourceVersion %q", key, rv)
	}
}

// namespaces holds the records namespaces of the tests, made before they
// run: the host's controllers write into a new namespace (its service
// account, its root CA ConfigMap), and those writes must not move the host's
// revision while a test compares revisions.
var namespaces = make(chan string, 100)

// makeNamespaces fills namespaces with n namespaces the host's controllers
// are done with.
func makeNamespaces(ctx context.Context, client kubernetes.Interface, n int) error {
	var names []string
	for range n {
		ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "records-"}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		names = append(names, ns.Name)
	}
	for _, ns := range names {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			_, caErr := client.CoreV1().ConfigMaps(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			_, saErr := client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
			return caErr == nil && saErr == nil, nil
		})
		if err != nil {
			return fmt.Errorf("namespace %s: the host's controllers did not finish: %w", ns, err)
		}
		namespaces <- ns
	}
	return nil
}

// takeNamespace returns a records namespace of its own to the test.
func takeNamespace(t *testing.T) string {
	t.Helper()
	select {
	case ns := <-namespaces:
		return ns
	default:
		t.Fatal("no records namespace left: make more in TestMain")
		return ""
	}
}

// increaseRV makes the host's revision move with a write the store does
// not see: any host object will do, revisions are the host's.
func (s *testStore) increaseRV(ctx context.Context, t *testing.T) int64 {
	t.Helper()
	cm, err := s.client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "increase-rv-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rv, err := strconv.ParseInt(cm.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return rv
}

// compact compacts the host's etcd at resourceVersion, and waits until the
// host's kube-apiserver refuses reads older than it.
func (s *testStore) compact(ctx context.Context, t *testing.T, resourceVersion string) {
	t.Helper()
	rev, err := strconv.ParseInt(resourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{cluster.EtcdURL}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	if _, err := client.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil && !strings.Contains(err.Error(), "compacted") {
		t.Fatalf("compacting the host's etcd at %d: %v", rev, err)
	}
}

// swappableTransformer is the records' transformer; the suite swaps the
// one inside while the store runs.
type swappableTransformer struct {
	mu sync.RWMutex
	t  value.Transformer
	// fail makes every read fail, as an undecryptable record would.
	fail atomic.Bool
}

func (s *swappableTransformer) setFailing(fail bool) { s.fail.Store(fail) }

func (s *swappableTransformer) get() value.Transformer {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t
}

func (s *swappableTransformer) set(t value.Transformer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.t = t
}

func (s *swappableTransformer) TransformFromStorage(ctx context.Context, data []byte, dataCtx value.Context) ([]byte, bool, error) {
	if s.fail.Load() {
		return nil, false, errors.New("synthetic transform error")
	}
	return s.get().TransformFromStorage(ctx, data, dataCtx)
}

func (s *swappableTransformer) TransformToStorage(ctx context.Context, data []byte, dataCtx value.Context) ([]byte, error) {
	return s.get().TransformToStorage(ctx, data, dataCtx)
}

// failingCodec fails every decode while failDecode is set.
type failingCodec struct {
	runtime.Codec
	failDecode atomic.Bool
}

func (c *failingCodec) setFailingDecode(fail bool) { c.failDecode.Store(fail) }

func (c *failingCodec) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if c.failDecode.Load() {
		return nil, nil, errors.New("synthetic decode error")
	}
	return c.Codec.Decode(data, defaults, into)
}
