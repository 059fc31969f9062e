package simulator

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// PurgeEtcd deletes every key under prefix in the etcd at etcdURL: what the
// simulator's inner kube-apiserver stored there.
func PurgeEtcd(ctx context.Context, etcdURL, prefix string) error {
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{etcdURL},
		DialTimeout: 5 * time.Second,
		Context:     ctx,
	})
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", etcdURL, err)
	}
	defer client.Close() //nolint:errcheck
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// The trailing slash keeps /simulators/ns/a from matching /simulators/ns/ab.
	if _, err := client.Delete(ctx, prefix+"/", clientv3.WithPrefix()); err != nil {
		return fmt.Errorf("deleting keys under %s: %w", prefix, err)
	}
	return nil
}
