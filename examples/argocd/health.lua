-- Argo CD health check of the coder.com kinds that report Ready and Stalled (argocd-cm keys
-- resource.customizations.health.coder.com_<Kind>): Healthy when Ready is True, Degraded when Stalled is
-- True (only a person can move the object on), Progressing otherwise, with "<reason>: <message>".
local hs = { status = "Progressing", message = "Waiting for the controller" }
local status = obj.status
if status == nil or status.conditions == nil then
  return hs
end
if obj.metadata ~= nil and status.observedGeneration ~= nil and status.observedGeneration < (obj.metadata.generation or 0) then
  return hs
end
local ready = nil
local stalled = nil
for _, condition in ipairs(status.conditions) do
  if condition.type == "Ready" then
    ready = condition
  elseif condition.type == "Stalled" then
    stalled = condition
  end
end
if ready ~= nil then
  hs.message = (ready.reason or "") .. ": " .. (ready.message or "")
end
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
elseif stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = (stalled.reason or "") .. ": " .. (stalled.message or "")
end
return hs
