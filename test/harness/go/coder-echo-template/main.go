// coder-echo-template writes a template archive for Coder's echo provisioner to stdout: the parse, plan
// and apply answers that `coder server --provisioner-types=echo` replays instead of running Terraform.
// test/harness/build.sh builds it inside a copy of the github.com/coder/coder/v2 module (it needs that
// module's replace directives), next to the coder binary; it is a test tool and is never shipped.
//
//	coder-echo-template [-agent-token UUID] [-agent-name main] [-fail-apply MSG] [-fail-plan MSG] [-log LINE]...
//
// Workspace starts get the agent (when a token is given) and the logs; stop and delete always succeed,
// so a workspace of a failing template can still be deleted.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/google/uuid"

	"github.com/coder/coder/v2/provisioner/echo"
	"github.com/coder/coder/v2/provisionersdk/proto"
)

type lines []string

func (l *lines) String() string     { return strings.Join(*l, "\n") }
func (l *lines) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	agentToken := flag.String("agent-token", "", "token of the workspace agent (none when empty)")
	agentName := flag.String("agent-name", "main", "name of the workspace agent")
	failApply := flag.String("fail-apply", "", "a workspace start fails with this message")
	failPlan := flag.String("fail-plan", "", "the template import and every plan fail with this message")
	var logs lines
	flag.Var(&logs, "log", "a log line of every workspace start (repeatable)")
	flag.Parse()

	var resources []*proto.Resource
	if *agentToken != "" {
		resources = []*proto.Resource{{
			Name: "dev",
			Type: "null_resource",
			Agents: []*proto.Agent{{
				Id:              uuid.NewString(),
				Name:            *agentName,
				OperatingSystem: "linux",
				Architecture:    "amd64",
				Auth:            &proto.Agent_Token{Token: *agentToken},
			}},
		}}
	}

	start := []*proto.Response{}
	for _, line := range logs {
		start = append(start, &proto.Response{Type: &proto.Response_Log{Log: &proto.Log{Level: proto.LogLevel_INFO, Output: line}}})
	}
	start = append(start, &proto.Response{Type: &proto.Response_Apply{Apply: &proto.ApplyComplete{Resources: resources, Error: *failApply}}})

	plan := &proto.PlanComplete{Resources: resources, Plan: []byte("{}"), ModuleFiles: []byte{}, Error: *failPlan}
	responses := &echo.Responses{
		Parse:          echo.ParseComplete,
		ProvisionPlan:  []*proto.Response{{Type: &proto.Response_Plan{Plan: plan}}},
		ProvisionApply: echo.ApplyComplete,
		ProvisionApplyMap: map[proto.WorkspaceTransition][]*proto.Response{
			proto.WorkspaceTransition_START: start,
		},
	}
	archive, err := echo.Tar(responses)
	if err != nil {
		fmt.Fprintf(os.Stderr, "coder-echo-template: %v\n", err)
		os.Exit(1)
	}
	_, _ = os.Stdout.Write(archive)
}
