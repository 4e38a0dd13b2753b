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
complete -c kubectl-hpa -n "__fish_kubectl_hpa_needs_command" -f -a "snapshot" -d 'Write everything explain reads for one HPA, from the cluster, as a v1 List (YAML) to stdout'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_needs_command" -f -a "simulate" -d 'Run the controller\'s algorithm over time against hypothetical or recorded load'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_needs_command" -f -a "completion" -d 'Print a shell completion script (bash, zsh, fish)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l snapshot -d 'Read everything from a snapshot file (a v1 List of API objects, YAML or JSON) instead of a cluster' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l now -d 'Evaluation time (RFC3339); default: the snapshot\'s time, else the newest metric sample, else now' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l history -d 'The controller\'s in-memory history (YAML/JSON: recommendations, scaleUpEvents, scaleDownEvents)' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -s o -l output -d 'Output format' -r -f -a "text\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l tolerance -d 'Controller tolerance (kube-controller-manager --horizontal-pod-autoscaler-tolerance)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l cpu-initialization-period -d '--horizontal-pod-autoscaler-cpu-initialization-period' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l initial-readiness-delay -d '--horizontal-pod-autoscaler-initial-readiness-delay' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l downscale-stabilization -d '--horizontal-pod-autoscaler-downscale-stabilization' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l sync-period -d '--horizontal-pod-autoscaler-sync-period' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l kubernetes-version -d 'Reproduce this Kubernetes release\'s controller (1.23 to 1.37; default: newest)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l feature-gates -d 'Controller feature gates that change the algorithm, e.g. HPAScaleToZero=false,HPAConfigurableTolerance=true' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l cluster -d 'The name of the kubeconfig cluster to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l user -d 'The name of the kubeconfig user to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l as-group -d 'Group to impersonate for the operation (repeatable)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -l request-timeout -d 'The length of time to wait before giving up on a single server request (e.g. 1s, 2m; 0 = no timeout)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -s A -l all-namespaces -d 'Explain the HPAs of every namespace'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand explain" -s h -l help -d 'Print help'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -s o -l output -d 'Output format' -r -f -a "yaml\t''
json\t''"
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l kubeconfig -d 'Path to the kubeconfig file to use' -r -F
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l cluster -d 'The name of the kubeconfig cluster to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l user -d 'The name of the kubeconfig user to use' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -s n -l namespace -d 'The namespace scope for this request' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l as -d 'Username to impersonate for the operation' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l as-group -d 'Group to impersonate for the operation (repeatable)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -l request-timeout -d 'The length of time to wait before giving up on a single server request (e.g. 1s, 2m; 0 = no timeout)' -r
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -s A -l all-namespaces -d 'Explain the HPAs of every namespace'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand snapshot" -s h -l help -d 'Print help'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand simulate" -s h -l help -d 'Print help'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand completion" -s h -l help -d 'Print help'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand help; and not __fish_seen_subcommand_from explain snapshot simulate completion help" -f -a "explain" -d 'Recompute the HPA controller\'s decision and explain it step by step'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand help; and not __fish_seen_subcommand_from explain snapshot simulate completion help" -f -a "snapshot" -d 'Write everything explain reads for one HPA, from the cluster, as a v1 List (YAML) to stdout'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand help; and not __fish_seen_subcommand_from explain snapshot simulate completion help" -f -a "simulate" -d 'Run the controller\'s algorithm over time against hypothetical or recorded load'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand help; and not __fish_seen_subcommand_from explain snapshot simulate completion help" -f -a "completion" -d 'Print a shell completion script (bash, zsh, fish)'
complete -c kubectl-hpa -n "__fish_kubectl_hpa_using_subcommand help; and not __fish_seen_subcommand_from explain snapshot simulate completion help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
