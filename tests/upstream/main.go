// Command harness parses configs with NVIDIA's own parsers and prints one JSON
// verdict per file, so gengpu's tests can compare their verdicts with upstream's.
//
//	harness device-plugin FILE...   k8s-device-plugin api/config/v1 (parse + NewConfig defaults)
//	harness mig-parted FILE...      mig-parted api/spec/v1 (Spec unmarshal)
//	harness appset-patch PATCH PARAMS...  an ApplicationSet templatePatch rendered with Go's text/template
//	                                      (missingkey=error), once per git files generator parameter file
//	harness pss FILE...             Kubernetes' Pod Security admission (restricted, latest) on the pod
//	                                template of every Pod, Deployment, Job ... in a multi-document file
//	harness mig-profile NAME...     go-nvlib's MIG profile name parser (AssertValidMigProfileFormat), as
//	                                mig-parted applies it to every profile of a config
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"text/template"

	nvdevice "github.com/NVIDIA/go-nvlib/pkg/nvlib/device"
	dpconfig "github.com/NVIDIA/k8s-device-plugin/api/config/v1"
	migspec "github.com/NVIDIA/mig-parted/api/spec/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	psaapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"sigs.k8s.io/yaml"
)

type verdict struct {
	File  string `json:"file"`
	Valid bool   `json:"valid"`
	Error string `json:"error,omitempty"`
}

func parseDevicePlugin(data []byte) error {
	var config dpconfig.Config
	if err := yaml.Unmarshal(data, &config); err != nil {
		return err
	}
	if config.Version == "" {
		config.Version = dpconfig.Version
	}
	if config.Version != dpconfig.Version {
		return fmt.Errorf("unknown version: %v", config.Version)
	}
	return nil
}

func parseMigParted(data []byte) error {
	var spec migspec.Spec
	return yaml.Unmarshal(data, &spec)
}

// appsetPatch renders the patch as the ApplicationSet controller does for a git files generator:
// the file's keys, plus path.path (the file's folder).
func appsetPatch(patchFile string, params []string) {
	text, err := os.ReadFile(patchFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tmpl := template.Must(template.New("patch").Option("missingkey=error").Parse(string(text)))
	out := map[string]string{}
	for _, file := range params {
		data, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		values := map[string]interface{}{}
		if err := yaml.Unmarshal(data, &values); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		values["path"] = map[string]interface{}{"path": filepath.Dir(file)}
		var buf bytes.Buffer
		if err := tmpl.Execute(&buf, values); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		out[file] = buf.String()
	}
	_ = json.NewEncoder(os.Stdout).Encode(out)
}

// podTemplate is the part of a workload Pod Security looks at; Pods and templates share the shape.
type podTemplate struct {
	Kind     string            `json:"kind"`
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		corev1.PodSpec `json:",inline"`
		Template       *struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
			Spec     corev1.PodSpec    `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// podSecurity evaluates each document's pod (or pod template) at the restricted level, latest version.
func podSecurity(files []string) []verdict {
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	level := psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}
	var out []verdict
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			out = append(out, verdict{File: file, Error: err.Error()})
			continue
		}
		for i, doc := range bytes.Split(data, []byte("\n---\n")) {
			var obj podTemplate
			if err := yaml.Unmarshal(doc, &obj); err != nil || obj.Kind == "" {
				continue
			}
			meta, spec := obj.Metadata, obj.Spec.PodSpec
			if obj.Spec.Template != nil {
				meta, spec = obj.Spec.Template.Metadata, obj.Spec.Template.Spec
			} else if obj.Kind != "Pod" {
				continue
			}
			result := policy.AggregateCheckResults(evaluator.EvaluatePod(level, &meta, &spec))
			v := verdict{File: fmt.Sprintf("%s#%d %s %s", file, i, obj.Kind, obj.Metadata.Name), Valid: result.Allowed}
			if !result.Allowed {
				v.Error = result.ForbiddenDetail()
			}
			out = append(out, v)
		}
	}
	return out
}

func main() {
	if len(os.Args) > 2 && os.Args[1] == "mig-profile" {
		lib := nvdevice.New(nil)
		var out []verdict
		for _, name := range os.Args[2:] {
			out = append(out, verdictOf(name, lib.AssertValidMigProfileFormat(name)))
		}
		printJSON(out)
		return
	}
	if len(os.Args) > 2 && os.Args[1] == "pss" {
		printJSON(podSecurity(os.Args[2:]))
		return
	}
	if len(os.Args) > 2 && os.Args[1] == "appset-patch" {
		appsetPatch(os.Args[2], os.Args[3:])
		return
	}
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: harness device-plugin|mig-parted FILE...")
		os.Exit(2)
	}
	parse := map[string]func([]byte) error{"device-plugin": parseDevicePlugin, "mig-parted": parseMigParted}[os.Args[1]]
	if parse == nil {
		fmt.Fprintln(os.Stderr, "unknown parser", os.Args[1])
		os.Exit(2)
	}
	var out []verdict
	for _, file := range os.Args[2:] {
		data, err := os.ReadFile(file)
		if err == nil {
			err = parse(data)
		}
		out = append(out, verdictOf(file, err))
	}
	printJSON(out)
}

func verdictOf(name string, err error) verdict {
	v := verdict{File: name, Valid: err == nil}
	if err != nil {
		v.Error = err.Error()
	}
	return v
}

func printJSON(value any) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	_ = enc.Encode(value)
}
