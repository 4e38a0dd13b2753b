# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_hpa_global_optspecs
    string join \n h/help V/version
end

function __fish_kubectl_hpa_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_hpa_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_hpa_using_subcommand
    set -l cmd (__fish_kubectl_hpa_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-hpa -n "__fish_kubectl_hpa_needs_command" -s h -l help -d 'Print help'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_needs_command" -f -a "explain" -d 'Recompute the HPA controller\'s decision and explain it step by step'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_needs_command" -f -a "snapshot" -d 'Write everything explain reads, from the cluster, as v1 Lists (YAML) to stdout: one HPA, or every HPA of the namespace (or of all with -A)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_needs_command" -f -a "simulate" -d 'Run the controller\'s algorithm over time against hypothetical or recorded load'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_needs_command" -f -a "migrate" -d 'Hand spec.replicas of autoscaled workloads to their HPA without a dip (dry run by default)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_needs_command" -f -a "completion" -d 'Print a shell completion script (bash, zsh, fish)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l snapshot -d 'Read everything from snapshot files instead of a cluster: v1 Lists or single API objects, YAML (several documents) or JSON; repeat it for several files; `-` reads standard input' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l now -d 'Evaluation time (RFC3339); default: the snapshot\'s time, else the newest metric sample, else now' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l history -d 'The controller\'s in-memory history: `auto` (default) infers it from the HPA\'s status and SuccessfulRescale events; `none` assumes an empty memory; a FILE (YAML/JSON: recommendations, scaleUpEvents, scaleDownEvents) gives it exactly' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -s o -l output -d 'Output format: text, wide, json, yaml, name, or jsonpath=TEMPLATE (e.g. \'{.desiredReplicas}\')' -r -f -a "text\t''
wide\t''
json\t''
yaml\t''
name\t''
jsonpath=\t''"
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l pods -d 'Which pods the text lists: `some` (the ones that matter and the extremes, when there are many) or `all` (also with -o wide)' -r -f -a "some\t'With many pods: the unready, missing and ignored ones and the extremes, and a count of the rest'
all\t'Every pod'"
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -s l -l selector -d 'Fleet overview: only the HPAs whose labels match this selector (e.g. -l \'team=shop,tier in (web,api)\')' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l sort-by -d 'Fleet overview: sort the rows by this JSONPath on an item of -o json (e.g. .desiredReplicas, .decidedBy, .metadata.name)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l watch-count -d 'With --watch: stop after this many evaluations (default: run until interrupted)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l tolerance -d 'Controller tolerance, 0 to below 1 (kube-controller-manager --horizontal-pod-autoscaler-tolerance)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l cpu-initialization-period -d '--horizontal-pod-autoscaler-cpu-initialization-period' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l initial-readiness-delay -d '--horizontal-pod-autoscaler-initial-readiness-delay' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l downscale-stabilization -d '--horizontal-pod-autoscaler-downscale-stabilization' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l sync-period -d '--horizontal-pod-autoscaler-sync-period' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l kubernetes-version -d 'Reproduce this Kubernetes release\'s controller (1.23 to 1.38; default: the cluster\'s, else 1.37)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l feature-gates -d 'Controller feature gates that change the algorithm, e.g. HPAScaleToZero=false,HPAConfigurableTolerance=true' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l cluster -d 'The name of the kubeconfig cluster to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l user -d 'The name of the kubeconfig user to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l as-group -d 'Group to impersonate for the operation (repeatable)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l request-timeout -d 'The length of time to wait before giving up on a single server request (e.g. 1s, 2m; 0 = no timeout; default: none, with --watch about the sync period)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -s s -l server -d 'The address and port of the Kubernetes API server (over the kubeconfig\'s)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l token -d 'Bearer token for authentication to the API server (over the kubeconfig user\'s)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l certificate-authority -d 'Path to a cert file for the certificate authority (over the kubeconfig cluster\'s)' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l client-certificate -d 'Path to a client certificate file for TLS (over the kubeconfig user\'s)' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l client-key -d 'Path to a client key file for TLS (over the kubeconfig user\'s)' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l tls-server-name -d 'Server name to use for server certificate validation (default: the server URL\'s host)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -s v -l v -d 'Log level: 6 or more writes each API request (method, URL, status, time) to stderr' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l no-headers -d 'Fleet overview: leave out the table\'s header line'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -s w -l watch -d 'Live only: re-evaluate every --sync-period, keeping the controller\'s recommendation history ourselves, and print only the changes (with NAME: its decisions; without: the fleet\'s rows, like kubectl get -w)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l quiet -d 'No progress on stderr while fetching from the cluster (it is shown only on a terminal, only once a fetch has taken a second, and never with -o json|yaml)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -s A -l all-namespaces -d 'Explain the HPAs of every namespace (the fleet overview)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -s o -l output -d 'Output format' -r -f -a "yaml\t''
json\t''"
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l cluster -d 'The name of the kubeconfig cluster to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l user -d 'The name of the kubeconfig user to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l as-group -d 'Group to impersonate for the operation (repeatable)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l request-timeout -d 'The length of time to wait before giving up on a single server request (e.g. 1s, 2m; 0 = no timeout; default: none, with --watch about the sync period)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -s s -l server -d 'The address and port of the Kubernetes API server (over the kubeconfig\'s)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l token -d 'Bearer token for authentication to the API server (over the kubeconfig user\'s)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l certificate-authority -d 'Path to a cert file for the certificate authority (over the kubeconfig cluster\'s)' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l client-certificate -d 'Path to a client certificate file for TLS (over the kubeconfig user\'s)' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l client-key -d 'Path to a client key file for TLS (over the kubeconfig user\'s)' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l tls-server-name -d 'Server name to use for server certificate validation (default: the server URL\'s host)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -s v -l v -d 'Log level: 6 or more writes each API request (method, URL, status, time) to stderr' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -s n -l namespace -d 'The namespace of the HPA(s)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l redact -d 'Replace what a bug report must not leak (env values, commands, images, annotations explain does not read, label values no selector reads, IPs); names are kept and the replay gives the same decision'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l quiet -d 'No progress on stderr while fetching from the cluster (it is shown only on a terminal, only once a fetch has taken a second, and never with -o json|yaml)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -s A -l all-namespaces -d 'Every HPA of every namespace (one List per namespace)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -s h -l help -d 'Print help'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l cluster -d 'The name of the kubeconfig cluster to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l user -d 'The name of the kubeconfig user to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l as-group -d 'Group to impersonate for the operation (repeatable)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l request-timeout -d 'The length of time to wait before giving up on a single server request (e.g. 1s, 2m; 0 = no timeout; default: none, with --watch about the sync period)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -s s -l server -d 'The address and port of the Kubernetes API server (over the kubeconfig\'s)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l token -d 'Bearer token for authentication to the API server (over the kubeconfig user\'s)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l certificate-authority -d 'Path to a cert file for the certificate authority (over the kubeconfig cluster\'s)' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l client-certificate -d 'Path to a client certificate file for TLS (over the kubeconfig user\'s)' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l client-key -d 'Path to a client key file for TLS (over the kubeconfig user\'s)' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l tls-server-name -d 'Server name to use for server certificate validation (default: the server URL\'s host)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -s v -l v -d 'Log level: 6 or more writes each API request (method, URL, status, time) to stderr' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l snapshot -d 'Start from a snapshot (v1 List as for explain): HPA, replicas, pods, requests and current load' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l hpa -d 'Start from an HPA manifest (autoscaling/v2 YAML) with synthetic pods' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l replicas -d 'Replicas at the start (with --hpa; default: minReplicas)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l requests -d 'Requests of each synthetic pod, e.g. cpu=500m,memory=256Mi (with --hpa; with --snapshot it replaces the pods\' requests)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l scenario -d 'Scenario file (YAML: duration, world, loads); flags override it' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l demand -d 'Total load of a metric shared by the Ready pods, e.g. cpu=ramp:1:6:5m:20m (repeatable)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l per-pod -d 'Per-pod value of a metric, independent of replicas, e.g. memory=300Mi (repeatable)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l value -d 'Value of an Object or External metric, e.g. queue_depth=step:10:200:5m (repeatable)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l prometheus -d 'Read the load of the HPA\'s metrics from this Prometheus (http://HOST:PORT)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l since -d 'How far back the replay starts [default: 24h]' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l until -d 'When the replay ends (RFC3339) [default: now]' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l query -d 'The PromQL of a metric\'s load, e.g. http_requests=sum(rate(http_requests_total{namespace="shop"}[2m])) (repeatable; required for Pods, Object and External metrics)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l interpolation -d 'How recorded series are read between points [default: linear]' -r -f -a "step\t'A point\'s value holds until the next point'
linear\t'Straight line between neighbouring points'"
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l duration -d 'Length of the run [default: 1h]' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l now -d 'Start time (RFC3339) [default: the snapshot\'s time, else 2026-01-01T00:00:00Z]' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l pod-startup -d 'Time from a pod\'s creation until it is Ready [default: 30s]' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l startup-cpu -d 'Extra CPU a starting pod burns, e.g. 500m [default: 0]' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l startup-burst -d 'How long the start-up CPU burst lasts after creation [default: --pod-startup]' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l metrics-lag -d 'Age of the load a metric sample describes [default: 15s]' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l metrics-window -d 'Window of the metric samples; a new pod has samples after one window [default: 15s]' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l history -d 'The controller\'s memory at the start: auto (inferred from a live HPA or a snapshot; with --hpa, a controller that has been running at the start), none (empty), or a history FILE' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l chart -d 'Also draw the run as an SVG chart into FILE (one panel per configuration)' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l compare -d 'Run a second HPA manifest on the same world and load, and compare' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -s o -l output -d 'Output format' -r -f -a "text\t'Settings, timeline, chart and summary for people'
json\t'The whole run as one JSON document (timeline rows streamed)'
csv\t'The timeline as CSV, one row per sync'
svg\t'The chart as SVG (load, target band, desired and Ready replicas, scale events)'"
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l timeline -d 'Which ticks the text timeline shows' -r -f -a "changes\t'Ticks where the replicas, readiness, proposal or deciding rule changed'
all\t'Every tick'
none\t'No timeline (chart and summary only)'"
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l width -d 'Width of the chart in columns' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l tolerance -d 'Controller tolerance, 0 to below 1 (kube-controller-manager --horizontal-pod-autoscaler-tolerance)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l cpu-initialization-period -d '--horizontal-pod-autoscaler-cpu-initialization-period' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l initial-readiness-delay -d '--horizontal-pod-autoscaler-initial-readiness-delay' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l downscale-stabilization -d '--horizontal-pod-autoscaler-downscale-stabilization' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l sync-period -d '--horizontal-pod-autoscaler-sync-period' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l kubernetes-version -d 'Reproduce this Kubernetes release\'s controller (1.23 to 1.38; default: the cluster\'s, else 1.37)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l feature-gates -d 'Controller feature gates that change the algorithm, e.g. HPAScaleToZero=false,HPAConfigurableTolerance=true' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -s n -l namespace -d 'The namespace of the HPA (live simulation)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -l quiet -d 'No progress on stderr while fetching from the cluster (it is shown only on a terminal, only once a fetch has taken a second, and never with -o json|yaml)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -s A -l all-namespaces -d 'Every namespace'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -s f -l filename -d 'Manifests: files, directories (a Helm chart, kustomizations) or - for stdin' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l hpa -d 'Files with the HPAs, for offline runs whose manifests hold none' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -s o -l output -d 'Output format' -r -f -a "text\t''
wide\t''
json\t''"
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l cluster -d 'The name of the kubeconfig cluster to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l user -d 'The name of the kubeconfig user to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l as-group -d 'Group to impersonate for the operation (repeatable)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l request-timeout -d 'The length of time to wait before giving up on a single server request (e.g. 1s, 2m; 0 = no timeout; default: none, with --watch about the sync period)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -s s -l server -d 'The address and port of the Kubernetes API server (over the kubeconfig\'s)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l token -d 'Bearer token for authentication to the API server (over the kubeconfig user\'s)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l certificate-authority -d 'Path to a cert file for the certificate authority (over the kubeconfig cluster\'s)' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l client-certificate -d 'Path to a client certificate file for TLS (over the kubeconfig user\'s)' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l client-key -d 'Path to a client key file for TLS (over the kubeconfig user\'s)' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l tls-server-name -d 'Server name to use for server certificate validation (default: the server URL\'s host)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -s v -l v -d 'Log level: 6 or more writes each API request (method, URL, status, time) to stderr' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -s R -l recursive -d 'Process the directories of -f recursively'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l offline -d 'Work from the files only, even when a cluster is configured'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l apply -d 'Send the planned requests to the cluster (default: dry run)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l server-dry-run -d 'Send the planned requests with dryRun=All: the API server\'s admission judges them, nothing is persisted'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -s y -l yes -d 'Do not ask before -A --apply writes to several namespaces (required when stdin is not a terminal)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l write -d 'Edit the local files (with a cluster: only after the cluster steps succeeded)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -l quiet -d 'No progress on stderr while fetching from the cluster (it is shown only on a terminal, only once a fetch has taken a second, and never with -o json|yaml)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -s A -l all-namespaces -d 'Migrate the autoscaled workloads of every namespace'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand migrate" -s h -l help -d 'Print help'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand completion" -s h -l help -d 'Print help'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand help; and not __fish_seen_subcommand_from explain snapshot simulate migrate completion help" -f -a "explain" -d 'Recompute the HPA controller\'s decision and explain it step by step'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand help; and not __fish_seen_subcommand_from explain snapshot simulate migrate completion help" -f -a "snapshot" -d 'Write everything explain reads, from the cluster, as v1 Lists (YAML) to stdout: one HPA, or every HPA of the namespace (or of all with -A)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand help; and not __fish_seen_subcommand_from explain snapshot simulate migrate completion help" -f -a "simulate" -d 'Run the controller\'s algorithm over time against hypothetical or recorded load'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand help; and not __fish_seen_subcommand_from explain snapshot simulate migrate completion help" -f -a "migrate" -d 'Hand spec.replicas of autoscaled workloads to their HPA without a dip (dry run by default)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand help; and not __fish_seen_subcommand_from explain snapshot simulate migrate completion help" -f -a "completion" -d 'Print a shell completion script (bash, zsh, fish)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand help; and not __fish_seen_subcommand_from explain snapshot simulate migrate completion help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
