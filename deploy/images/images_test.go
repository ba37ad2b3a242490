package main

import (
	"archive/tar"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Each image is built as `make images` builds it, then opened from its OCI
// layout and its tarball and checked for what a cluster relies on.
func TestImages(t *testing.T) {
	out := t.TempDir()
	if err := run(out, "v9.8.7", "ghcr.io/artt-dev", "../..", "/etc/ssl/certs/ca-certificates.crt", []string{"artt-scaler", "artt-traffic"}); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"artt-scaler", "artt-traffic"} {
		t.Run(cmd, func(t *testing.T) {
			p, err := layout.FromPath(filepath.Join(out, cmd))
			if err != nil {
				t.Fatal(err)
			}
			idx, err := p.ImageIndex()
			if err != nil {
				t.Fatal(err)
			}
			man, err := idx.IndexManifest()
			if err != nil || len(man.Manifests) != 1 {
				t.Fatalf("layout index %v, %v: want one image", man, err)
			}
			if ref := man.Manifests[0].Annotations["org.opencontainers.image.ref.name"]; ref != "ghcr.io/artt-dev/"+cmd+":v9.8.7" {
				t.Errorf("ref name %q", ref)
			}
			img, err := idx.Image(man.Manifests[0].Digest)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			if ep := cfg.Config.Entrypoint; len(ep) != 1 || ep[0] != "/"+cmd {
				t.Errorf("entrypoint %v, want [/%s]", ep, cmd)
			}
			uid, gid, ok := strings.Cut(cfg.Config.User, ":")
			if n, err := strconv.Atoi(uid); !ok || err != nil || n == 0 {
				t.Errorf("user %q: want a numeric non-root uid:gid", cfg.Config.User)
			} else if _, err := strconv.Atoi(gid); err != nil {
				t.Errorf("group %q not numeric", gid)
			}
			if cfg.OS != "linux" || cfg.Architecture != "amd64" {
				t.Errorf("platform %s/%s", cfg.OS, cfg.Architecture)
			}

			// The tarball (docker load's format) holds the same image: the
			// same config, so the same layers, entrypoint and user.
			fromTar, err := tarball.ImageFromPath(filepath.Join(out, cmd+".tar"), nil)
			if err != nil {
				t.Fatal(err)
			}
			c1, _ := img.ConfigName()
			c2, err := fromTar.ConfigName()
			if err != nil || c1 != c2 {
				t.Errorf("tarball image config %s differs from the layout's %s (%v)", c2, c1, err)
			}

			// Extract the root filesystem: no shell, the CA bundle, the binary.
			root := t.TempDir()
			files := extract(t, mutate.Extract(img), root)
			for _, f := range files {
				base := filepath.Base(f)
				if base == "sh" || base == "bash" || base == "ash" || base == "busybox" {
					t.Errorf("image holds a shell: %s", f)
				}
			}
			if st, err := os.Stat(filepath.Join(root, "etc/ssl/certs/ca-certificates.crt")); err != nil || st.Size() < 1000 {
				t.Errorf("CA bundle: %v", err)
			}
			// The binary runs from the extracted root and knows its version.
			got, err := exec.Command(filepath.Join(root, cmd), "--version").CombinedOutput()
			if err != nil || !strings.HasPrefix(string(got), cmd+" v9.8.7 (") {
				t.Errorf("%s --version: %q, %v", cmd, got, err)
			}
		})
	}
}

// extract writes a flattened image filesystem under root and lists its
// files.
func extract(t *testing.T, rc io.ReadCloser, root string) []string {
	t.Helper()
	defer rc.Close()
	var names []string
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		path := filepath.Join(root, filepath.Clean("/"+h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, os.FileMode(h.Mode)&0o755|0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
}
