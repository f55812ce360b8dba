// Command podfacts prints what the upstream kubelet derives from pod manifests, as test vectors
// for kubelet-ts: the static pod UID of a manifest file (through the kubelet's own file source),
// the text that UID hashes, and the container hashes. It also prints the Go layout of the
// internal and v1 Pod types, from which kubelet-ts generates its copy of that layout.
//
//	podfacts vectors <node-name> <manifest-dir>   JSON: one entry per manifest
//	podfacts layout                               JSON: the struct layout of core.Pod and v1.Pod
//	podfacts checkpoints                          JSON: sample CPU and memory manager checkpoint files
//	podfacts annotations <manifest-dir>           JSON: each container (v1, defaulted) with its preStop and ports annotations
//
// Built by scripts/upstream/build.sh (component podfacts) inside the k8s.io/kubernetes wrapper
// module, so it uses exactly the packages the upstream kubelet binary is built from.
package main

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/dump"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	cpustate "k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	kubeconfig "k8s.io/kubernetes/pkg/kubelet/config"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
)

type vector struct {
	File string `json:"file"`
	// UID as the kubelet's file source assigned it.
	UID string `json:"uid"`
	// Dump is the text the UID hashes before "host:<node>file:<path>".
	Dump string `json:"dump"`
	// ContainerHashes maps container name to the io.kubernetes.container.hash value.
	ContainerHashes map[string]string `json:"containerHashes"`
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: podfacts vectors <node-name> <manifest-dir> | podfacts layout")
	}
	switch os.Args[1] {
	case "vectors":
		if len(os.Args) != 4 {
			fail("usage: podfacts vectors <node-name> <manifest-dir>")
		}
		emit(vectors(types.NodeName(os.Args[2]), os.Args[3]))
	case "layout":
		emit(layout())
	case "checkpoints":
		emit(checkpoints())
	case "annotations":
		if len(os.Args) != 3 {
			fail("usage: podfacts annotations <manifest-dir>")
		}
		emit(annotations(os.Args[2]))
	default:
		fail("unknown mode " + os.Args[1])
	}
}

func vectors(node types.NodeName, dir string) []vector {
	uids := sourceUIDs(node, dir)
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	check(err)
	sort.Strings(files)
	out := []vector{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		check(err)
		pod := decodeInternal(data)
		text := dump.ForHash(pod)
		// The same computation as the file source, to show which text the UID hashes.
		hasher := md5.New()
		hasher.Write([]byte(text))
		fmt.Fprintf(hasher, "host:%s", node)
		fmt.Fprintf(hasher, "file:%s", file)
		mine := hex.EncodeToString(hasher.Sum(nil))
		uid, ok := uids[file]
		if !ok {
			fail("the file source did not report " + file)
		}
		if uid != mine {
			fail(fmt.Sprintf("%s: the file source gave %s, the dump hashes to %s", file, uid, mine))
		}
		v1Pod := &v1.Pod{}
		check(legacyscheme.Scheme.Convert(pod, v1Pod, nil))
		hashes := map[string]string{}
		for _, c := range append(append([]v1.Container{}, v1Pod.Spec.InitContainers...), v1Pod.Spec.Containers...) {
			hashes[c.Name] = fmt.Sprintf("%x", kubecontainer.HashContainer(&c))
		}
		out = append(out, vector{File: filepath.Base(file), UID: uid, Dump: text, ContainerHashes: hashes})
	}
	return out
}

// sourceUIDs runs the kubelet's own file source over dir and returns the UID of each pod by file.
func sourceUIDs(node types.NodeName, dir string) map[string]string {
	updates := make(chan interface{}, 16)
	kubeconfig.NewSourceFile(dir, node, time.Hour, updates)
	select {
	case raw := <-updates:
		update := raw.(kubetypes.PodUpdate)
		// The source keeps no file name on the pod: match by the generated name instead.
		byName := map[string]string{}
		for _, pod := range update.Pods {
			byName[pod.Name] = string(pod.UID)
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		check(err)
		result := map[string]string{}
		for _, file := range files {
			data, err := os.ReadFile(file)
			check(err)
			pod := decodeInternal(data)
			name := pod.Name + "-" + strings.ToLower(string(node))
			if uid, ok := byName[name]; ok {
				result[file] = uid
			}
		}
		return result
	case <-time.After(30 * time.Second):
		fail("the file source sent nothing in 30s")
	}
	return nil
}

func decodeInternal(data []byte) *api.Pod {
	js, err := utilyaml.ToJSON(data)
	check(err)
	obj, err := runtime.Decode(legacyscheme.Codecs.UniversalDecoder(), js)
	check(err)
	pod, ok := obj.(*api.Pod)
	if !ok {
		fail(fmt.Sprintf("not a pod: %T", obj))
	}
	return pod
}

// --- container annotations --------------------------------------------------------------------

type containerAnnotations struct {
	File      string        `json:"file"`
	Container *v1.Container `json:"container"`
	// PreStop and Ports are what kuberuntime's newContainerAnnotations writes (json.Marshal), "" when absent.
	PreStop string `json:"preStop"`
	Ports   string `json:"ports"`
}

func annotations(dir string) []containerAnnotations {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	check(err)
	sort.Strings(files)
	out := []containerAnnotations{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		check(err)
		pod := &v1.Pod{}
		check(legacyscheme.Scheme.Convert(decodeInternal(data), pod, nil))
		for i := range pod.Spec.Containers {
			c := &pod.Spec.Containers[i]
			entry := containerAnnotations{File: filepath.Base(file), Container: c}
			if c.Lifecycle != nil && c.Lifecycle.PreStop != nil {
				raw, err := json.Marshal(c.Lifecycle.PreStop)
				check(err)
				entry.PreStop = string(raw)
			}
			if len(c.Ports) > 0 {
				raw, err := json.Marshal(c.Ports)
				check(err)
				entry.Ports = string(raw)
			}
			out = append(out, entry)
		}
	}
	return out
}

// --- checkpoints ----------------------------------------------------------------------------------

type checkpointFile struct {
	Name string `json:"name"`
	// Data is the file as the kubelet's MarshalCheckpoint writes it.
	Data string `json:"data"`
}

func checkpoints() []checkpointFile {
	out := []checkpointFile{}
	add := func(name string, marshal func() ([]byte, error)) {
		data, err := marshal()
		check(err)
		out = append(out, checkpointFile{Name: name, Data: string(data)})
	}
	none := cpustate.NewCPUManagerCheckpoint()
	none.PolicyName = "none"
	add("cpu-none", none.MarshalCheckpoint)
	static := cpustate.NewCPUManagerCheckpoint()
	static.PolicyName = "static"
	static.DefaultCPUSet = "0,2-3"
	static.Entries["pod-b"] = map[string]string{"main": "1", "side": "4-5"}
	static.Entries["pod-a"] = map[string]string{"app": "6"}
	add("cpu-static", static.MarshalCheckpoint)
	memNone := memstate.NewMemoryManagerCheckpoint()
	memNone.PolicyName = "None"
	add("memory-none", memNone.MarshalCheckpoint)
	mem := memstate.NewMemoryManagerCheckpoint()
	mem.PolicyName = "Static"
	mem.MachineState[0] = &memstate.NUMANodeState{
		NumberOfAssignments: 2,
		MemoryMap: map[v1.ResourceName]*memstate.MemoryTable{
			v1.ResourceMemory: {TotalMemSize: 8 << 30, SystemReserved: 1 << 30, Allocatable: 7 << 30, Reserved: 1 << 29, Free: 7<<30 - 1<<29},
			"hugepages-2Mi":   {TotalMemSize: 0, SystemReserved: 0, Allocatable: 0, Reserved: 0, Free: 0},
		},
		Cells: []int{0},
	}
	mem.MachineState[10] = &memstate.NUMANodeState{MemoryMap: map[v1.ResourceName]*memstate.MemoryTable{}, Cells: []int{10}}
	mem.MachineState[2] = &memstate.NUMANodeState{MemoryMap: map[v1.ResourceName]*memstate.MemoryTable{}, Cells: nil}
	mem.Entries["pod-a"] = map[string][]memstate.Block{"app": {{NUMAAffinity: []int{0}, Type: v1.ResourceMemory, Size: 1 << 29}}}
	add("memory-static", mem.MarshalCheckpoint)
	return out
}

// --- layout -------------------------------------------------------------------------------------

type field struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// JSON is the v1 field's json name ("" for internal types; ",inline" for inlined structs).
	JSON string `json:"json,omitempty"`
	// Embedded is true for anonymous struct fields.
	Embedded bool `json:"embedded,omitempty"`
}

type typeInfo struct {
	Kind   string  `json:"kind"`
	Elem   string  `json:"elem,omitempty"`
	Key    string  `json:"key,omitempty"`
	Fields []field `json:"fields,omitempty"`
}

func layout() map[string]typeInfo {
	out := map[string]typeInfo{}
	pkgOf := map[string]string{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		name := t.String()
		// Types are keyed by their printed name; two packages' types with one name would mix.
		if pkg, seen := pkgOf[name]; seen && pkg != t.PkgPath() {
			fail(fmt.Sprintf("%s names types of both %s and %s", name, pkg, t.PkgPath()))
		}
		pkgOf[name] = t.PkgPath()
		if _, seen := out[name]; seen {
			return
		}
		info := typeInfo{Kind: t.Kind().String()}
		out[name] = info
		switch t.Kind() {
		case reflect.Ptr, reflect.Slice, reflect.Array:
			info.Elem = t.Elem().String()
			walk(t.Elem())
		case reflect.Map:
			info.Key = t.Key().String()
			info.Elem = t.Elem().String()
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				tag := strings.Split(f.Tag.Get("json"), ",")
				j := tag[0]
				if j == "" && len(tag) > 1 && tag[1] == "inline" {
					j = ",inline"
				}
				info.Fields = append(info.Fields, field{Name: f.Name, Type: f.Type.String(), JSON: j, Embedded: f.Anonymous})
				walk(f.Type)
			}
		}
		out[name] = info
	}
	walk(reflect.TypeOf(api.Pod{}))
	walk(reflect.TypeOf(v1.Pod{}))
	return out
}

func emit(v interface{}) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	check(enc.Encode(v))
}

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "podfacts: "+msg)
	os.Exit(1)
}
