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

package snapshot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/mirror"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// DefaultWorkers write in parallel, as the source mirror's first copy does.
const DefaultWorkers = 32

// Files of an Importer's directory.
const (
	// documentFile is the document being or last imported: kept so that an
	// import cut short by a restart can be resumed.
	documentFile = "document.json"
	// statusFile is the last status, so that a restart tells that the
	// import it cut short did not end.
	statusFile = "status.json"
)

var (
	// ErrBusy: an import runs already.
	ErrBusy = errors.New("an import is running; GET " + contract.PathImport + " tells how it stands")
	// ErrNothingToResume: no document was stored.
	ErrNothingToResume = errors.New("no imported document to resume")
)

// Config is what an Importer imports into.
type Config struct {
	// Client writes into the inner cluster, as its admin.
	Client kubernetes.Interface
	// Dir keeps the document and the status (in the simulator's data
	// directory, which outlives a restart of its container).
	Dir string
	// SchedulerConfig makes a document's scheduler configuration the one in
	// effect; nil leaves it aside.
	SchedulerConfig func(ctx context.Context, data []byte) error
	// HoldControllers stops kube-controller-manager until release is
	// called; nil writes with it running. An import holds it while it
	// writes, so that it starts with every object of the document in its
	// first lists: running, it may see a workload before the Pods written
	// ahead of it (its informers lag under load) and make more, deleting
	// one again once it sees them all. held ends, with its cause, if the
	// hold does before release: the import stops there and fails, saying
	// so, rather than write on beside a running kube-controller-manager.
	HoldControllers func(ctx context.Context) (held context.Context, release func(), err error)
	// Workers defaults to DefaultWorkers.
	Workers int
}

// Importer imports documents into the inner cluster in the background, one
// at a time, with the source mirror's transforms and Writer: objects lose
// what belongs to the cluster they come from (identity, finalizers,
// deletion timestamps, owners but the workloads copied in, the scheduler's
// results); finished Pods and Jobs are skipped; objects that exist are
// left as they are, so an import done twice, or resumed, creates only what
// is missing.
type Importer struct {
	cfg    Config
	writer *mirror.Writer
	jobs   chan job

	mu sync.Mutex
	// busy from the moment a document is accepted until its import ends.
	busy   bool
	status contract.ImportStatus
	// ownerUIDs are the UIDs of the workloads created, by kind.
	ownerUIDs map[ownerKey]types.UID
}

type ownerKey struct{ kind, namespace, name string }

// job is an import of the stored document.
type job struct {
	// config is the document's scheduler configuration, if any.
	config json.RawMessage
}

// New returns an Importer keeping its files in cfg.Dir. An import a
// restart cut short shows as Failed, to be resumed.
func New(cfg Config) (*Importer, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the import directory: %w", err)
	}
	im := &Importer{cfg: cfg, writer: &mirror.Writer{Client: cfg.Client}, jobs: make(chan job, 1)}
	data, err := os.ReadFile(filepath.Join(cfg.Dir, statusFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("reading the last import's status: %w", err)
	default:
		if err := json.Unmarshal(data, &im.status); err != nil {
			return nil, fmt.Errorf("reading the last import's status: %w", err)
		}
		if im.status.Phase == contract.ImportImporting {
			im.status.Phase = contract.ImportFailed
			im.status.LastError = "interrupted by a restart of the simulator; " + resumeHint
		}
	}
	return im, nil
}

// Status is how the current or last import stands.
func (im *Importer) Status() contract.ImportStatus {
	im.mu.Lock()
	defer im.mu.Unlock()
	return copyStatus(im.status)
}

func copyStatus(s contract.ImportStatus) contract.ImportStatus {
	s.Resources = maps.Clone(s.Resources)
	return s
}

// Start stores the document body reads (nil: the one stored, to resume its
// import), checks that it can be read, queues its import for Run and
// returns its status. It returns ErrBusy while an import runs, an
// InvalidError for a document it cannot read, ErrNothingToResume, or the
// body's own error.
func (im *Importer) Start(ctx context.Context, body io.Reader) (contract.ImportStatus, error) {
	im.mu.Lock()
	if im.busy {
		defer im.mu.Unlock()
		return copyStatus(im.status), ErrBusy
	}
	im.busy = true
	im.mu.Unlock()

	totals, config, err := im.accept(body)
	if err != nil {
		im.mu.Lock()
		im.busy = false
		im.mu.Unlock()
		return im.Status(), err
	}
	now := time.Now()
	st := contract.ImportStatus{Phase: contract.ImportImporting, StartTime: &now, Resources: map[string]contract.ImportCounts{}}
	for r, n := range totals {
		st.Resources[r] = contract.ImportCounts{Total: n}
	}
	im.mu.Lock()
	im.status = st
	im.ownerUIDs = map[ownerKey]types.UID{}
	im.mu.Unlock()
	im.persist(ctx, st)
	// busy lets one job at a time through: the channel has room for it.
	im.jobs <- job{config: config}
	klog.FromContext(ctx).Info("Import accepted", "resume", body == nil, "objects", totals)
	return copyStatus(st), nil
}

// accept stores body as the document (if not nil), then reads the stored
// document through: its objects by resource, and its scheduler
// configuration.
func (im *Importer) accept(body io.Reader) (map[string]int64, json.RawMessage, error) {
	path := filepath.Join(im.cfg.Dir, documentFile)
	if body != nil {
		tmp := path + ".tmp"
		if err := writeFile(tmp, body); err != nil {
			return nil, nil, err
		}
		totals, config, err := readTotals(tmp)
		if err != nil {
			_ = os.Remove(tmp)
			return nil, nil, err
		}
		if err := os.Rename(tmp, path); err != nil {
			return nil, nil, fmt.Errorf("storing the document: %w", err)
		}
		return totals, config, nil
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, ErrNothingToResume
	}
	return readTotals(path)
}

func writeFile(path string, body io.Reader) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("storing the document: %w", err)
	}
	_, err = io.Copy(f, body)
	if err != nil {
		err = fmt.Errorf("reading the document: %w", err)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("storing the document: %w", cerr)
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}

// readTotals reads a document through, every object typed, so that one
// that cannot be read is refused before its import starts.
func readTotals(path string) (map[string]int64, json.RawMessage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the document: %w", err)
	}
	defer func() { _ = f.Close() }()
	totals := map[string]int64{}
	var config json.RawMessage
	err = scan(f, visitor{
		wants: func(*mirror.Kind) bool { return true },
		item: func(k *mirror.Kind, _ mirror.Object) error {
			totals[k.Resource]++
			return nil
		},
		config: func(raw json.RawMessage) error {
			if !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
				config = raw
			}
			return nil
		},
	})
	return totals, config, err
}

// resumeHint ends the error of every failed import: the document stays
// stored, so a resume, after a fix, creates what is missing.
var resumeHint = fmt.Sprintf("POST %s?%s=true resumes it", contract.PathImport, contract.ImportResumeParam)

// Run imports what Start queues, until ctx ends.
func (im *Importer) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case j := <-im.jobs:
			im.run(ctx, j)
		}
	}
}

func (im *Importer) run(ctx context.Context, j job) {
	logger := klog.FromContext(ctx)
	err := im.importDocument(ctx, j)
	now := time.Now()
	im.mu.Lock()
	st := &im.status
	st.CompletionTime = &now
	failed := int64(0)
	for _, c := range st.Resources {
		failed += c.Failed
	}
	stopping := ctx.Err() != nil
	switch {
	case stopping:
		// Left as Importing on disk: the next start says it was cut short.
		st.Phase = contract.ImportFailed
		st.LastError = "interrupted: the simulator is stopping"
	case err != nil:
		// Also a child process that a stop killed before ctx ended.
		st.Phase = contract.ImportFailed
		st.LastError = err.Error() + "; " + resumeHint
	case failed > 0:
		st.Phase = contract.ImportFailed
		st.LastError = fmt.Sprintf("%d objects were refused; the last: %s; %s", failed, st.LastError, resumeHint)
	default:
		st.Phase = contract.ImportSucceeded
	}
	out := copyStatus(*st)
	im.busy = false
	im.mu.Unlock()
	if !stopping {
		im.persist(ctx, out)
	}
	logger.Info("Import ended", "phase", out.Phase, "elapsed", now.Sub(*out.StartTime).Round(time.Millisecond), "lastError", out.LastError)
}

// importDocument applies the document's scheduler configuration, so that
// its pending Pods are scheduled with it, then writes its objects tier
// after tier as the mirror's first copy does: each tier is read from the
// stored document and written by the workers before the next is read.
func (im *Importer) importDocument(ctx context.Context, j job) error {
	if j.config != nil && im.cfg.SchedulerConfig != nil {
		if err := im.cfg.SchedulerConfig(ctx, j.config); err != nil {
			return fmt.Errorf("%s: %w", ConfigField, err)
		}
	}
	writeCtx := ctx
	if im.cfg.HoldControllers != nil {
		held, release, err := im.cfg.HoldControllers(ctx)
		if err != nil {
			return fmt.Errorf("holding kube-controller-manager while the objects are written: %w", err)
		}
		defer release()
		writeCtx = held
	}
	for tier := mirror.TierClasses; tier <= mirror.TierDeployments; tier++ {
		if !im.hasTier(tier) {
			continue
		}
		start := time.Now()
		err := im.importTier(writeCtx, tier)
		if ctx.Err() == nil && writeCtx.Err() != nil {
			return fmt.Errorf("kube-controller-manager's hold ended while the objects were written: %w", context.Cause(writeCtx))
		}
		if err != nil {
			return err
		}
		klog.FromContext(ctx).V(2).Info("Imported a tier", "tier", tier, "elapsed", time.Since(start).Round(time.Millisecond))
	}
	return ctx.Err()
}

// inTier says whether objects of k may be written in tier.
func inTier(k *mirror.Kind, tier int) bool {
	return k.Tier == tier || (k.Resource == "pods" && tier == mirror.TierPendingPods)
}

func (im *Importer) hasTier(tier int) bool {
	im.mu.Lock()
	defer im.mu.Unlock()
	for r, c := range im.status.Resources {
		if c.Total > 0 && inTier(mirror.KindOf(r), tier) {
			return true
		}
	}
	return false
}

// item is an object to write.
type item struct {
	kind *mirror.Kind
	obj  mirror.Object
}

func (im *Importer) importTier(ctx context.Context, tier int) error {
	f, err := os.Open(filepath.Join(im.cfg.Dir, documentFile))
	if err != nil {
		return fmt.Errorf("reading the document: %w", err)
	}
	defer func() { _ = f.Close() }()
	opts := &mirror.Options{Workloads: true, OwnerUID: im.ownerUID}
	next := make(chan item)
	var wg sync.WaitGroup
	for range im.cfg.Workers {
		wg.Go(func() {
			for it := range next {
				im.write(ctx, it)
			}
		})
	}
	err = scan(f, visitor{
		wants: func(k *mirror.Kind) bool { return inTier(k, tier) },
		item: func(k *mirror.Kind, obj mirror.Object) error {
			if k.TierOf(obj) != tier {
				return nil
			}
			c, ok := k.Transform(obj, opts)
			if !ok {
				im.count(k.Resource, func(c *contract.ImportCounts) { c.Skipped++ })
				return nil
			}
			select {
			case next <- item{kind: k, obj: c}:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	})
	close(next)
	wg.Wait()
	return err
}

// write creates an object; one that exists is left as it is.
func (im *Importer) write(ctx context.Context, it item) {
	out, err := im.writer.Create(ctx, it.kind, it.obj)
	switch {
	case err == nil:
		im.count(it.kind.Resource, func(c *contract.ImportCounts) { c.Created++ })
		if it.kind.Workload {
			im.mu.Lock()
			im.ownerUIDs[ownerKey{it.kind.Kind, out.GetNamespace(), out.GetName()}] = out.GetUID()
			im.mu.Unlock()
		}
	case apierrors.IsAlreadyExists(err):
		im.count(it.kind.Resource, func(c *contract.ImportCounts) { c.Existing++ })
	case ctx.Err() != nil:
	default:
		klog.FromContext(ctx).V(2).Info("Importing an object failed", "resource", it.kind.Resource, "object", klog.KObj(it.obj), "err", err)
		im.mu.Lock()
		im.status.LastError = err.Error()
		im.mu.Unlock()
		im.count(it.kind.Resource, func(c *contract.ImportCounts) { c.Failed++ })
	}
}

func (im *Importer) count(resource string, f func(*contract.ImportCounts)) {
	im.mu.Lock()
	defer im.mu.Unlock()
	c := im.status.Resources[resource]
	f(&c)
	im.status.Resources[resource] = c
}

func (im *Importer) ownerUID(kind, namespace, name string) (types.UID, bool) {
	im.mu.Lock()
	defer im.mu.Unlock()
	uid, ok := im.ownerUIDs[ownerKey{kind, namespace, name}]
	return uid, ok
}

// persist keeps st in the directory, for after a restart.
func (im *Importer) persist(ctx context.Context, st contract.ImportStatus) {
	data, err := json.Marshal(st)
	if err == nil {
		path := filepath.Join(im.cfg.Dir, statusFile)
		if err = os.WriteFile(path+".tmp", data, 0o600); err == nil {
			err = os.Rename(path+".tmp", path)
		}
	}
	if err != nil {
		klog.FromContext(ctx).Error(err, "Keeping the import's status")
	}
}
