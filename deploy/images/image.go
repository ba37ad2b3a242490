package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// nonRoot is the numeric user and group the images run as (distroless'
// "nonroot"), so Kubernetes' runAsNonRoot can verify it without /etc/passwd.
const nonRoot = 65532

// epoch stamps every file and the image, so the same inputs give the same
// image digest.
var epoch = time.Unix(0, 0).UTC()

// buildBinary builds cmd/<cmd> as a static binary with the version linked in.
func buildBinary(source, cmd, version, dir string) (string, error) {
	out, err := filepath.Abs(filepath.Join(dir, cmd))
	if err != nil {
		return "", err
	}
	build := exec.Command("go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -X github.com/artt-dev/artt/internal/version.Version="+version,
		"-o", out, "./cmd/"+cmd)
	build.Dir = source
	if cmd == "artt-scheduler" {
		// kube-scheduler with ARTT's plugin lives in its own module, so the
		// main module does not inherit k8s.io/kubernetes' replace directives;
		// it reports kube-scheduler's version.
		build.Args = []string{"go", "build", "-trimpath", "-buildvcs=false", "-ldflags", "-s -w", "-o", out, "./cmd/artt-scheduler"}
		build.Dir = filepath.Join(source, "scheduler")
	}
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if b, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/%s: %v\n%s", cmd, err, b)
	}
	return out, nil
}

// writeImage assembles the image: a base layer with /etc/passwd, /etc/group,
// the CA bundle and a writable /tmp, and a layer with the binary as the
// entrypoint; no shell, no package manager.
func writeImage(out, cmd, ref, binary string, ca []byte) (layoutDir, tarPath string, err error) {
	bin, err := os.ReadFile(binary)
	if err != nil {
		return "", "", err
	}
	base, err := tarLayer([]file{
		{path: "etc/", mode: 0o755, dir: true},
		{path: "etc/passwd", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", nonRoot, nonRoot))},
		{path: "etc/group", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", nonRoot))},
		{path: "etc/ssl/", mode: 0o755, dir: true},
		{path: "etc/ssl/certs/", mode: 0o755, dir: true},
		{path: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: ca},
		{path: "home/", mode: 0o755, dir: true},
		{path: "home/nonroot/", mode: 0o700, dir: true, uid: nonRoot},
		{path: "tmp/", mode: 0o1777, dir: true},
	})
	if err != nil {
		return "", "", err
	}
	app, err := tarLayer([]file{{path: cmd, mode: 0o755, data: bin}})
	if err != nil {
		return "", "", err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), base, app)
	if err != nil {
		return "", "", err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cfg, err := img.ConfigFile()
	if err != nil {
		return "", "", err
	}
	cfg = cfg.DeepCopy()
	cfg.Architecture, cfg.OS = "amd64", "linux"
	cfg.Created = v1.Time{Time: epoch}
	cfg.Config.Entrypoint = []string{"/" + cmd}
	cfg.Config.User = fmt.Sprintf("%d:%d", nonRoot, nonRoot)
	cfg.Config.WorkingDir = "/"
	cfg.Config.Env = []string{"PATH=/", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}
	cfg.Config.Labels = map[string]string{
		"org.opencontainers.image.title":  cmd,
		"org.opencontainers.image.source": "https://github.com/artt-dev/artt",
	}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		return "", "", err
	}
	layoutDir = filepath.Join(out, cmd)
	_ = os.RemoveAll(layoutDir)
	p, err := layout.Write(layoutDir, empty.Index)
	if err != nil {
		return "", "", err
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref})); err != nil {
		return "", "", err
	}
	tag, err := name.NewTag(ref)
	if err != nil {
		return "", "", err
	}
	tarPath = filepath.Join(out, cmd+".tar")
	if err := tarball.WriteToFile(tarPath, tag, img); err != nil {
		return "", "", err
	}
	return layoutDir, tarPath, nil
}

type file struct {
	path string
	mode int64
	data []byte
	dir  bool
	uid  int
}

// tarLayer makes an uncompressed-then-gzipped layer from files, owned by
// root unless uid is set, stamped with the epoch.
func tarLayer(files []file) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.path, Mode: f.mode, ModTime: epoch, Uid: f.uid, Gid: f.uid, Format: tar.FormatPAX}
		if f.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if !f.dir {
			if _, err := tw.Write(f.data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer))
}
