-- Argo CD health check of a CoderTemplateTest (argocd-cm key
-- resource.customizations.health.coder.com_CoderTemplateTest). Succeeded with Ready=True is Healthy, Failed is
-- Degraded, anything else Progressing, with "<reason>: <message>" from the status.
local hs = { status = "Progressing", message = "Waiting for the controller" }
if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  hs.message = "Deleting the test workspace"
  return hs
end
local status = obj.status
if status == nil or status.observedGeneration == nil or obj.metadata == nil or status.observedGeneration < (obj.metadata.generation or 0) then
  return hs
end
if status.reason ~= nil then
  hs.message = status.reason .. ": " .. (status.message or "")
end
local ready = false
if status.conditions ~= nil then
  for _, condition in ipairs(status.conditions) do
    if condition.type == "Ready" and condition.status == "True" then
      ready = true
    end
  end
end
if status.phase == "Succeeded" and ready then
  hs.status = "Healthy"
elseif status.phase == "Failed" then
  hs.status = "Degraded"
end
return hs
