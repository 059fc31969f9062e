package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

func countKeys(t testing.TB, etcdURL, prefix string) int64 {
	t.Helper()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdURL}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close() //nolint:errcheck
	resp, err := client.Get(t.Context(), prefix+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	return resp.Count
}

// TestExternalEtcd runs a simulator on an external etcd: its objects survive
// the loss of its Pod, and deleting the simulator purges its keys.
func TestExternalEtcd(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "etcd")
	etcd, err := c.StartEtcd(ctx, "external-etcd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(etcd.Stop)

	ports := make([]int32, 2)
	for i := range ports {
		p, err := framework.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = int32(p)
	}
	s := newSimulator("ext")
	s.Spec.KubeAPIServerPort, s.Spec.SimulatorServerPort, s.Spec.EtcdURL = ports[0], ports[1], etcd.URL
	created, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, s, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := waitForPod(t, ns, "ext", 1)
	if len(pod.Spec.Containers) != 1 {
		t.Errorf("a simulator on an external etcd has no etcd container: %d containers", len(pod.Spec.Containers))
	}
	proc, err := c.RunSimulatorAsProcess(ctx, ns, "ext")
	if err != nil {
		t.Fatal(err)
	}
	waitForPhase(t, simClient(t), ns, "ext", v1alpha1.SimulatorAvailable)

	cfg, err := clientcmd.BuildConfigFromFlags("", fetchKubeconfig(t, ns, "ext", ""))
	if err != nil {
		t.Fatal(err)
	}
	inner := kubernetes.NewForConfigOrDie(cfg)
	if _, err := inner.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "keep-me"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	prefix := backing.EtcdPrefix(created)
	if n := countKeys(t, etcd.URL, prefix); n == 0 {
		t.Fatalf("no keys under %s in the external etcd", prefix)
	}

	// The Pod goes; the reconciler makes a new one, which finds the data.
	proc.Stop()
	if err := c.Client.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	pod2 := waitForPod(t, ns, "ext", 1)
	if pod2.UID == pod.UID {
		t.Fatal("the Pod was not recreated")
	}
	proc, err = c.RunSimulatorAsProcess(ctx, ns, "ext")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	waitForPhase(t, simClient(t), ns, "ext", v1alpha1.SimulatorAvailable)
	eventually(t, "the inner object to be back", func(ctx context.Context) (bool, error) {
		_, err := inner.CoreV1().ConfigMaps("default").Get(ctx, "keep-me", metav1.GetOptions{})
		return err == nil, nil
	})

	// Deleting the simulator deletes its Pod; play kubelet: stop it.
	if err := simClient(t).SimV1alpha1().Simulators(ns).Delete(ctx, "ext", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Pod to be deleted", func(ctx context.Context) (bool, error) {
		p, err := c.Client.CoreV1().Pods(ns).Get(ctx, pod2.Name, metav1.GetOptions{})
		return err == nil && p.DeletionTimestamp != nil, nil
	})
	proc.Stop()
	if err := c.Client.CoreV1().Pods(ns).Delete(ctx, pod2.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, fmt.Sprintf("the keys under %s to be purged", prefix), func(context.Context) (bool, error) {
		return countKeys(t, etcd.URL, prefix) == 0, nil
	})
}
