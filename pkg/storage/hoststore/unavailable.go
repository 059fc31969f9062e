package hoststore

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"
)

// UnavailableDecorator is the storage of a server built before the host-backed
// records exist: every read and write answers 503, while discovery, OpenAPI,
// authentication and authorization are served for real.
func UnavailableDecorator(_ *storagebackend.ConfigForResource, _ string, _ func(runtime.Object) (string, error),
	_ func() runtime.Object, _ func() runtime.Object, _ storage.AttrFunc, _ storage.IndexerFuncs, _ *cache.Indexers,
) (storage.Interface, factory.DestroyFunc, error) {
	return unavailable{}, func() {}, nil
}

type unavailable struct{}

func errUnavailable() error {
	return apierrors.NewServiceUnavailable("storage is not implemented yet")
}

func (unavailable) Versioner() storage.Versioner { return storage.APIObjectVersioner{} }
func (unavailable) Create(context.Context, string, runtime.Object, runtime.Object, uint64) error {
	return errUnavailable()
}
func (unavailable) Delete(context.Context, string, runtime.Object, *storage.Preconditions, storage.ValidateObjectFunc, runtime.Object, storage.DeleteOptions) error {
	return errUnavailable()
}
func (unavailable) Watch(context.Context, string, storage.ListOptions) (watch.Interface, error) {
	return nil, errUnavailable()
}
func (unavailable) Get(context.Context, string, storage.GetOptions, runtime.Object) error {
	return errUnavailable()
}
func (unavailable) GetList(context.Context, string, storage.ListOptions, runtime.Object) error {
	return errUnavailable()
}
func (unavailable) GuaranteedUpdate(context.Context, string, runtime.Object, bool, *storage.Preconditions, storage.UpdateFunc, runtime.Object) error {
	return errUnavailable()
}
func (unavailable) Stats(context.Context) (storage.Stats, error) { return storage.Stats{}, nil }
func (unavailable) ReadinessCheck() error                        { return nil }
func (unavailable) RequestWatchProgress(context.Context) error   { return nil }
func (unavailable) GetCurrentResourceVersion(context.Context) (uint64, error) {
	return 0, errUnavailable()
}
func (unavailable) EnableResourceSizeEstimation(storage.KeysFunc) error { return nil }
func (unavailable) CompactRevision() int64                              { return 0 }
